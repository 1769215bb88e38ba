/** Everything the tmux backend needs per conversation: the Claude launch plus the pane's settings. */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { type ClaudeLaunch, claudeLaunch } from '../claude/launch.js';
import type { SpareProcess } from '../claude/spare.js';
import type { LaunchContext } from '../launch.js';
import type { TuiSettings } from './pane/host.js';

/** The pane settings of Rudder's own panes; the message directory is one the agent may read (--add-dir). */
export interface TmuxSettings extends TuiSettings {
  /** The tmux server: `tmux -L <socket>`. */
  socket: string;
  width: number;
  height: number;
}

export interface TmuxLaunch extends ClaudeLaunch {
  tmux: TmuxSettings;
}

export const TMUX_DEFAULTS = {
  socket: 'rudder',
  width: 200,
  height: 50,
  pasteFileThresholdBytes: 32 * 1024,
  readyTimeoutMs: 30_000,
  arrivalRetries: 3,
  arrivalTimeoutMs: 5_000,
} as const;

/** Timings of the pane dialogue, measured on 2.1.332 (keys sent during the first frames are lost). */
export const TIMING = {
  /** Poll while a turn runs. */
  pollMs: 200,
  /** Poll while idle: is the pane still alive, did someone type into it? */
  idlePollMs: 2_000,
  /** The input box must have been shown this long before the first keys. */
  bootSettleMs: 1_000,
  /** Between the paste and Enter. */
  enterSettleMs: 400,
  /** A menu must stay on screen this long before it is relayed (transient frames are not). */
  menuStableMs: 700,
  /** With no end marker in the transcript: ready and quiet this long ends the turn. */
  quietEndMs: 3_000,
  bootTimeoutMs: 60_000,
} as const;

/** The tmux session name of a conversation: readable, exact-target safe, unique per conversation id. */
export function paneName(conversationId: string): string {
  const slug = conversationId.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40);
  const hash = createHash('sha256').update(conversationId).digest('hex').slice(0, 8);
  return `rudder-${slug}-${hash}`;
}

/** agent.tmux's typing settings for a conversation's pane, its long messages under the data dir. */
export function tuiSettings(ctx: LaunchContext): TuiSettings {
  const t = ctx.agent.tmux;
  return {
    pasteFileThresholdBytes: t.pasteFileThresholdBytes,
    messageDir: path.join(ctx.dataDir, 'tmux-messages', paneName(ctx.conversationId)),
    readyTimeoutMs: t.readyTimeoutSeconds * 1000,
    arrivalRetries: t.arrivalRetries,
    arrivalTimeoutMs: t.arrivalTimeoutSeconds * 1000,
    autoAllow: t.autoAllow,
  };
}

/** A conversation's TUI launch: the Claude launch plus agent.tmux. */
export function tmuxLaunch(ctx: LaunchContext, spare: SpareProcess | undefined): TmuxLaunch {
  const t = ctx.agent.tmux;
  return {
    ...claudeLaunch(ctx, spare),
    tmux: { socket: t.socket, width: t.width, height: t.height, ...tuiSettings(ctx) },
  };
}
