/**
 * `rudder attach`: a conversation's session opened in a terminal on this machine.
 *   - a claude-tmux conversation: its own pane, as it is;
 *   - a conversation attached to a person's pane (claude-attached): that pane;
 *   - a headless one (claude-stream): moved, at a turn boundary, to a pane of the hand-back server
 *     (agents/tmux/attach/hand-back-pane.ts): the lane lets its process go and holds what arrives in line
 *     (Lane.moveWhenIdle), `claude --resume` starts there with the conversation's own launch, and the
 *     conversation follows that pane exactly as /attach does (bindPane: the attachment row, claude-attached),
 *     so the phone goes on driving the same claude after the person detaches;
 *   - a Codex one: the line that resumes its thread in Codex's own TUI; its session let go (at a turn boundary)
 *     and its messages held until the person hands it back (one writer at a time).
 * A node's conversation, or a backend with no terminal program, is refused with a stable code.
 */

import { startHandBackPane } from '../../agents/tmux/attach/hand-back-pane.js';
import { Tmux } from '../../agents/tmux/pane/tmux.js';
import { paneName } from '../../agents/tmux/tmux-launch.js';
import { WEB } from '../../channels/web/name.js';
import type { AgentConfig } from '../../config/schema.js';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import { attachedText, bindPane } from '../../projects/attach-commands.js';
import type { ProjectCommandDeps } from '../../projects/command-deps.js';
import type { AgentLaunches } from '../../projects/launches.js';
import { type RunningPane, runningIn } from '../../projects/running.js';
import type { Projects } from '../../projects/service.js';
import { paneHoldsSession } from '../../projects/terminals.js';
import type { AttachmentRow } from '../../store/attachments.js';
import type { Store } from '../../store/store.js';
import { conversationIdOf } from '../intake/intake.js';
import type { Lane } from '../lane/lane.js';
import type { TerminalAnswer, TerminalCodex, TerminalPane, TerminalPlan, TerminalWay } from './types.js';

export interface TerminalDeps {
  store: Store;
  projects: Projects;
  conversations: { lane(conversationId: string): Lane };
  launches: Pick<AgentLaunches, 'backendOf' | 'tuiLaunch'>;
  agent(): AgentConfig;
  log: Logger;
  /** What /attach uses for one conversation: the move binds the new pane the same way. */
  projectDeps(conversationId: string): ProjectCommandDeps;
}

/** How long one request waits for a running turn to end before it answers "waiting" (the CLI asks again). */
const TURN_WAIT_MS = 20_000;
/** How long a Codex thread given to a terminal holds the conversation's messages, unless handed back sooner. */
const CODEX_HOLD_MS = 8 * 3600_000;
/** How long the pane's claude may take to record its session after its box shows (sessions/<pid>.json). */
const FIND_PANE_MS = 15_000;

type Way = { way: 'attached'; row: AttachmentRow } | { way: Exclude<TerminalWay, 'pane'> | 'tmux' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Which way this conversation opens in a terminal; refused with the code that says why not. */
function wayOf(d: TerminalDeps, id: string): Way {
  const project = d.projects.peek(id);
  if (project.node)
    throw new RudderError(
      'TERMINAL_ON_NODE',
      `Its agent runs on node ${project.node} (project ${project.name}): send your messages from here.`,
      { conversationId: id, node: project.node },
    );
  const row = d.store.attachments.get(id);
  if (row && paneHoldsSession(row)) {
    if (row.kind === 'pane') return { way: 'attached', row };
    throw new RudderError(
      'SESSION_IN_TERMINAL',
      `Session ${row.sessionId ?? ''} is still open in pane ${row.label} (let go of with /detach): attach that ` +
        `terminal (tmux -S ${row.socket} attach-session -t ${row.paneId}), or /attach it again.`,
      { conversationId: id, pane: row.label },
    );
  }
  const backend = d.launches.backendOf(id);
  if (backend === 'claude-tmux') return { way: 'tmux' };
  const resumable = backend === 'claude-stream' || backend === 'codex';
  if (resumable && !d.store.conversation(id)?.sessionId)
    throw new RudderError('TERMINAL_NO_SESSION', undefined, { conversationId: id });
  if (backend === 'claude-stream') return { way: 'move' };
  if (backend === 'codex') return { way: 'codex' };
  throw new RudderError('TERMINAL_UNSUPPORTED', `Its backend: ${backend}.`, { conversationId: id, backend });
}

/** What `rudder attach <key>` will do, asked before it does it (the CLI says a turn runs, and offers Stop). */
export function terminalPlan(d: TerminalDeps, key: string): TerminalPlan {
  const id = conversationIdOf(WEB, key);
  const w = wayOf(d, id);
  const way: TerminalWay = w.way === 'attached' || w.way === 'tmux' ? 'pane' : w.way;
  return { way, busy: d.conversations.lane(id).busy(), command: `rudder attach ${key}` };
}

/** Opens the conversation in a terminal: where to attach, the Codex line, or "waiting" while a turn runs. */
export async function openInTerminal(d: TerminalDeps, key: string): Promise<TerminalAnswer> {
  const id = conversationIdOf(WEB, key);
  const until = Date.now() + TURN_WAIT_MS;
  for (;;) {
    const w = wayOf(d, id);
    if (w.way === 'attached') return attachedPane(w.row, false);
    if (w.way === 'tmux') return tmuxPane(d, id);
    const lane = d.conversations.lane(id);
    if (w.way === 'codex') {
      const given = lane.handToTerminal('the thread is given to Codex in a terminal', Date.now() + CODEX_HOLD_MS);
      if (given !== false) return given.then(() => codexLine(d, id));
    } else {
      const move = lane.moveWhenIdle('the session moves to a terminal', () => moveToPane(d, id));
      if (move !== false) {
        await move.catch((err: Error) => {
          throw new RudderError('TERMINAL_MOVE_FAILED', `Why: ${err.message}`, { conversationId: id }, err);
        });
        const row = d.store.attachments.get(id);
        if (row?.kind === 'pane') return attachedPane(row, true);
      }
    }
    if (Date.now() >= until) return { way: 'waiting', reason: 'a turn is running: the move waits for it to end' };
    await sleep(250);
  }
}

/** The terminal program is done with the session (Codex closed): what waited runs now; how many (-1: none held). */
export function backFromTerminal(d: TerminalDeps, key: string): number {
  return d.conversations.lane(conversationIdOf(WEB, key)).backFromTerminal();
}

function attachedPane(row: AttachmentRow, moved: boolean): TerminalPane {
  return {
    way: 'pane',
    socket: row.socket ?? '',
    target: row.paneId ?? '',
    label: row.label ?? '',
    ...(row.sessionId ? { sessionId: row.sessionId } : {}),
    moved,
  };
}

/** A claude-tmux conversation's own pane on the backend's server, while it runs. */
async function tmuxPane(d: TerminalDeps, id: string): Promise<TerminalPane> {
  const tmux = new Tmux({ name: d.agent().tmux.socket });
  const name = paneName(id);
  if (!(await tmux.hasSession(name)))
    throw new RudderError('TERMINAL_NO_PANE', undefined, { conversationId: id, pane: name });
  const sessionId = d.store.conversation(id)?.sessionId;
  return {
    way: 'pane',
    socket: tmux.socketPath(),
    target: `=${name}`,
    label: `${name}:0.0`,
    ...(sessionId ? { sessionId } : {}),
    moved: false,
  };
}

/** A Codex conversation: its thread resumed in Codex's own TUI, in the conversation's directory. */
function codexLine(d: TerminalDeps, id: string): TerminalCodex {
  const threadId = d.store.conversation(id)?.sessionId ?? '';
  const cwd = d.projects.prepare(id).cwd;
  return {
    way: 'codex',
    argv: [d.agent().codex.bin ?? 'codex', 'resume', '-C', cwd, threadId],
    threadId,
    warning:
      'Rudder holds this conversation’s messages while Codex has the thread (one writer at a time): they run, in ' +
      'order, once it is handed back (rudder attach --done, or /retry from the phone).',
  };
}

/**
 * The move, run by the lane once the headless process is let go (nothing starts meanwhile): the session resumed
 * in a pane of the hand-back server, found there by its process (as /sessions finds a person's pane), and bound
 * to the conversation as /attach binds one. A failure leaves the conversation on its own process again.
 */
async function moveToPane(d: TerminalDeps, id: string): Promise<void> {
  const sessionId = d.store.conversation(id)?.sessionId;
  if (!sessionId) throw new RudderError('TERMINAL_NO_SESSION', undefined, { conversationId: id });
  const launch = d.launches.tuiLaunch(id);
  const started = await startHandBackPane(launch, sessionId, d.log);
  const tmux = new Tmux({ path: started.socket });
  try {
    const pane = await paneOf(d, started.socket, started.paneId, started.pid, launch.cwd);
    const deps = d.projectDeps(id);
    const refused = await bindPane(deps, pane);
    if (refused) throw new RudderError(refused.code, refused.detail, { conversationId: id });
    deps.tell?.(id, `${handedText(pane)} ${attachedText(pane)}`);
  } catch (err) {
    await tmux.killSession(started.session);
    throw err;
  }
}

/** The pane as /sessions lists it (its claude, config dir and session), once the claude has recorded its session. */
async function paneOf(d: TerminalDeps, socket: string, paneId: string, pid: number, cwd: string) {
  const deadline = Date.now() + FIND_PANE_MS;
  for (;;) {
    const list = await runningIn([cwd], { servers: [socket], configDir: d.projects.configDir() });
    const pane = list.find((r): r is RunningPane => r.attachable && r.paneId === paneId && r.pid === pid);
    if (pane?.sessionId) return pane;
    if (Date.now() >= deadline)
      throw new RudderError('PANE_GONE', `The claude resumed in pane ${paneId} did not record its session.`, {
        pane: paneId,
        pid,
      });
    await sleep(200);
  }
}

const handedText = (pane: RunningPane) =>
  `🖥️ Handed to a terminal: \`rudder attach\` resumed the session in pane ${pane.label}.`;
