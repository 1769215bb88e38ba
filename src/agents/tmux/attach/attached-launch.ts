/**
 * What a conversation attached to a person's pane is launched with: the pane (found by its tmux id
 * on its server) and the claude process in it, checked to be the same process (its start time), its
 * config dir and session; the typing settings of agent.tmux, for a pane the person types in too.
 */
import { RudderError } from '../../../errors.js';
import type { SessionLaunch } from '../../common/session-base.js';
import { type LaunchContext, launchBase } from '../../launch.js';
import type { TuiLaunch } from '../pane/host.js';
import { tuiSettings } from '../tmux-launch.js';

/** A person's pane running a Claude Code TUI, as the conversation keeps it. */
export interface AttachedPane {
  /** The tmux server's socket path (`tmux -S`). */
  socket: string;
  /** tmux's id of the pane (`%12`), stable for the pane's life. */
  paneId: string;
  /** Where the person finds it: `session:window.pane`. */
  label: string;
  /** The claude process in it, and when it started: with the pid, one process. */
  pid: number;
  procStart: string | undefined;
  /** Its config dir (its transcripts and sessions/<pid>.json) and the directory its session records. */
  configDir: string;
  cwd: string;
  /** Its session; undefined while a startup dialog shows (the TUI makes one after it). */
  sessionId: string | undefined;
}

/** What the launch context carries for an attached conversation. */
export interface Attachment {
  pane: AttachedPane;
  /** The pane's claude is gone (it exited, the pane closed): the conversation is no longer attached. */
  gone(why: string): void;
}

export interface AttachedLaunch extends TuiLaunch {
  pane: AttachedPane;
  onGone?: (why: string) => void;
}

export function attachedLaunch(ctx: LaunchContext & { attached?: Attachment }): AttachedLaunch {
  if (!ctx.attached)
    throw new RudderError('CONFIG_INVALID', 'No pane to attach to.', { conversationId: ctx.conversationId });
  const base: SessionLaunch = launchBase(ctx);
  return {
    ...base,
    sessionId: ctx.attached.pane.sessionId,
    pane: ctx.attached.pane,
    // The person's configured wish decides which menu options the phone offers (relay: none that stop the asking).
    permissionMode: ctx.settings.permissionMode,
    tmux: { ...tuiSettings(ctx), shared: true },
    onGone: ctx.attached.gone,
  };
}
