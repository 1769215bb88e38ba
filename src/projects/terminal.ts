/**
 * A conversation's session opened in a terminal on the machine its agent runs on (`rudder attach`), the part
 * that machine does (the gateway's own, or a node's for its projects):
 *   - a claude-tmux conversation: its own pane, as it is;
 *   - a conversation attached to a person's pane (claude-attached): that pane;
 *   - a headless one (claude-stream): moved, once its process is let go, to a pane of the hand-back server
 *     (agents/tmux/attach/hand-back-pane.ts): `claude --resume` starts there with the conversation's own launch,
 *     and the conversation follows that pane exactly as /attach does (bindPane: the attachment row,
 *     claude-attached), so the phone goes on driving the same claude after the person detaches;
 *   - a Codex one: the line that resumes its thread in Codex's own TUI, in the conversation's directory.
 * When a turn may run (the lane on the gateway) is the caller's: nothing here waits for one.
 */
import { resolveCodexBinary } from '../agents/codex/binary.js';
import { startHandBackPane } from '../agents/tmux/attach/hand-back-pane.js';
import { Tmux } from '../agents/tmux/pane/tmux.js';
import { paneName } from '../agents/tmux/tmux-launch.js';
import type { AgentConfig } from '../config/schema.js';
import { RudderError } from '../errors.js';
import type { Logger } from '../ops/logger.js';
import type { AttachmentRow } from '../store/attachments.js';
import type { Store } from '../store/store.js';
import { attachedText, bindPane } from './attach-commands.js';
import type { ProjectCommandDeps } from './command-deps.js';
import type { AgentLaunches } from './launches.js';
import { type RunningPane, runningIn } from './running.js';
import type { Projects } from './service.js';
import type { TerminalCodex, TerminalPane, TerminalWay } from './terminal-types.js';
import { paneHoldsSession } from './terminals.js';

export interface TerminalDeps {
  store: Store;
  projects: Projects;
  launches: Pick<AgentLaunches, 'backendOf' | 'tuiLaunch'>;
  agent(): AgentConfig;
  log: Logger;
  /** What /attach uses for one conversation: the move binds the new pane the same way. */
  projectDeps(conversationId: string): ProjectCommandDeps;
}

/** Which way the conversation opens here (an attachment row: that pane); refused with the code that says why not. */
export type LocalWay = { way: 'attached'; row: AttachmentRow } | { way: 'move' | 'codex' | 'tmux' };

/** How long the pane's claude may take to record its session after its box shows (sessions/<pid>.json). */
const FIND_PANE_MS = 15_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function localWay(d: Pick<TerminalDeps, 'store' | 'launches'>, id: string): LocalWay {
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

/** The way as the plan names it: a pane already there, a move, or Codex's line. */
export const planWay = (w: LocalWay): TerminalWay => (w.way === 'attached' || w.way === 'tmux' ? 'pane' : w.way);

export function attachedPane(row: AttachmentRow, moved: boolean): TerminalPane {
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
export async function tmuxPane(d: Pick<TerminalDeps, 'store' | 'agent'>, id: string): Promise<TerminalPane> {
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

/** The codex Rudder runs (its TUI reads the threads it wrote); a codex it cannot find is left to the PATH. */
function codexBin(agent: AgentConfig): string {
  try {
    return resolveCodexBinary(agent.codex.bin).path;
  } catch {
    return agent.codex.bin ?? 'codex';
  }
}

/** A Codex conversation: its thread resumed in Codex's own TUI, in the conversation's directory. */
export function codexLine(d: Pick<TerminalDeps, 'store' | 'projects' | 'agent'>, id: string): TerminalCodex {
  const threadId = d.store.conversation(id)?.sessionId ?? '';
  const cwd = d.projects.prepare(id).cwd;
  return {
    way: 'codex',
    argv: [codexBin(d.agent()), 'resume', '-C', cwd, threadId],
    threadId,
    cwd,
    warning:
      'Rudder holds this conversation’s messages while Codex has the thread (one writer at a time): they run, in ' +
      'order, once it is handed back (rudder attach --done, or /retry from the phone).',
  };
}

/**
 * The move, once the headless process is let go (nothing starts meanwhile): the session resumed in a pane of the
 * hand-back server, found there by its process (as /sessions finds a person's pane), and bound to the conversation
 * as /attach binds one. A failure closes that pane: the conversation goes on in its own process.
 */
export async function moveToPane(d: TerminalDeps, id: string): Promise<RunningPane> {
  const sessionId = d.store.conversation(id)?.sessionId;
  if (!sessionId) throw new RudderError('TERMINAL_NO_SESSION', undefined, { conversationId: id });
  const launch = d.launches.tuiLaunch(id);
  const started = await startHandBackPane(launch, sessionId, d.log);
  const tmux = new Tmux({ path: started.socket });
  try {
    const pane = await paneOf(d, started.socket, started.paneId, started.pid, launch.cwd);
    const refused = await bindPane(d.projectDeps(id), pane);
    if (refused) throw new RudderError(refused.code, refused.detail, { conversationId: id });
    return pane;
  } catch (err) {
    await tmux.killSession(started.session);
    throw err;
  }
}

/** The pane as /sessions lists it (its claude, config dir and session), once the claude has recorded its session. */
async function paneOf(d: Pick<TerminalDeps, 'projects'>, socket: string, paneId: string, pid: number, cwd: string) {
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

/** What the conversation is told once its session moved to a pane. */
const handedText = (pane: RunningPane) =>
  `🖥️ Handed to a terminal: \`rudder attach\` resumed the session in pane ${pane.label}. ${attachedText(pane)}`;

/** What this machine opened, and what the conversation is to be told of it (a move). */
export interface Opened {
  answer: TerminalPane | TerminalCodex;
  told?: string;
}

/**
 * Opens the conversation's session in a terminal here. For a move or a Codex line, the caller has made sure no
 * turn runs or starts (the gateway's lane holds its messages); the session's process here is let go first.
 */
export async function openHere(d: TerminalDeps, id: string): Promise<Opened> {
  const w = localWay(d, id);
  switch (w.way) {
    case 'attached':
      return { answer: attachedPane(w.row, false) };
    case 'tmux':
      return { answer: await tmuxPane(d, id) };
    case 'codex':
      await d.projectDeps(id).release('the thread is given to Codex in a terminal');
      return { answer: codexLine(d, id) };
    case 'move': {
      const pane = await moveToPane(d, id);
      const row = d.store.attachments.get(id);
      if (row?.kind !== 'pane') throw new RudderError('PANE_GONE', `Pane ${pane.label} let go of at once.`);
      return { answer: attachedPane(row, true), told: handedText(pane) };
    }
  }
}
