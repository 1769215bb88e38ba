/**
 * A conversation's session handed back to the person (`rudder attach`): `claude --resume <session>` started in
 * a tmux pane of the server Rudder keeps for hand-backs, with the conversation's own launch (its directory,
 * model, permission mode, system prompt and environment: the values through the 0600 file, never argv), and
 * brought to an idle input box. The pane carries no agent mark and is recorded nowhere as Rudder's: like a
 * pane a person attaches, it is theirs from the start, and nothing of Rudder's (a shutdown, a restart's
 * leftover sweep) kills it. It closes when its claude exits, as a person's terminal does.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Logger } from '../../../ops/logger.js';
import { tuiArgs } from '../pane/args.js';
import { Pane } from '../pane/pane.js';
import { bootPane, stderrFileOf } from '../pane/pane-process.js';
import { Tmux } from '../pane/tmux.js';
import { paneName, type TmuxLaunch } from '../tmux-launch.js';

/** The server of the hand-back panes: beside the claude-tmux backend's own (`<agent.tmux.socket>-terminals`). */
export const handBackServer = (backendSocket: string) => `${backendSocket}-terminals`;

export interface HandBackPane {
  /** The server's socket path (`tmux -S`) and the tmux session the person attaches to. */
  socket: string;
  session: string;
  /** tmux's id of the pane (`%3`) and the claude's pid in it. */
  paneId: string;
  pid: number;
}

/** Starts the session's TUI in a new pane and waits for its input box; a pane that does not boot is closed. */
export async function startHandBackPane(launch: TmuxLaunch, sessionId: string, log: Logger): Promise<HandBackPane> {
  const tmux = new Tmux({ name: handBackServer(launch.tmux.socket) });
  // A name of its own each time: an earlier hand-back's pane (the person's now) is never replaced.
  const session = `${paneName(launch.conversationId)}-${randomBytes(3).toString('hex')}`;
  fs.mkdirSync(launch.tmux.messageDir, { recursive: true, mode: 0o700 });
  const args = tuiArgs(launch, { resume: sessionId, addDirs: [launch.tmux.messageDir] });
  await tmux.newSession({
    name: session,
    cwd: launch.cwd,
    width: launch.tmux.width,
    height: launch.tmux.height,
    env: { ...launch.env, TERM: 'tmux-256color' },
    argv: [launch.bin, ...args],
    stderrFile: stderrFileOf(launch),
  });
  const info = await tmux.paneInfo(session);
  const pane = new Pane(tmux, session);
  const policy = {
    apiKey: launch.env.ANTHROPIC_API_KEY,
    bypass: launch.permissionMode === 'bypassPermissions',
    addDirs: [launch.tmux.messageDir],
    home: launch.env.HOME,
  };
  const context = { conversationId: launch.conversationId, pane: session, pid: info.pid };
  try {
    await bootPane(pane, policy, log, {
      resuming: true,
      context,
      diagnosis: { env: launch.env, stderrFile: stderrFileOf(launch) },
    });
    await tmux.closePanesOnExit(session);
  } catch (err) {
    await tmux.killSession(session);
    throw err;
  }
  const paneId = (await tmux.allPanes()).find((p) => p.label.startsWith(`${session}:`))?.id ?? '';
  log.info({ ...context, paneId }, 'the session was handed to a terminal pane');
  return { socket: tmux.socketPath(), session, paneId, pid: info.pid };
}
