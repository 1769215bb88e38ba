/**
 * The running sessions of a project that lives on a node, seen from the front: the node looks in its own
 * tmux servers and answers (a query over NATS), attaches the conversation's session there to a pane and lets
 * it go; the front keeps no row of it (the node does) and drives the attached session as any remote one. The
 * node opens a conversation's session in a terminal there too (`rudder attach` on its machine).
 */
import { RudderError } from '../errors.js';
import { errorFromWire, type WirePaneRef } from '../nodes/wire.js';
import type { ProjectCommandDeps } from './command-deps.js';
import { unanswered } from './node-sessions.js';
import type { Project } from './projects.js';
import type { Running, RunningPane } from './running.js';
import type { TerminalCodex, TerminalPane, TerminalWay } from './terminal-types.js';

/** What the front needs to ask a node: the conversation asking (its worktree there), and the link. */
export type NodeAskDeps = Pick<ProjectCommandDeps, 'askNode'> & { conversationId?: string };

/** A pane the node would not attach: its claude gone from it, or another conversation drives it. */
export interface NodePaneRefusal {
  code: 'PANE_GONE' | 'PANE_HELD';
  text: string;
  detail: string;
}

/** A node's answer of another shape than the question's (a node of another version). */
const notUnderstood = (p: Project) =>
  new RudderError('AGENT_TURN_FAILED', `Node ${p.node} gave an answer Rudder does not understand.`);

function ask(d: NodeAskDeps, p: Project): NonNullable<ProjectCommandDeps['askNode']> {
  if (!d.askNode)
    throw new RudderError('CONFIG_INVALID', `Project ${p.name} lives on node ${p.node}, but this Rudder has no nodes.`);
  return d.askNode;
}

/** What runs now in the project on its node, and the node's tmux servers looked in; an unreachable node throws. */
export async function nodeRunning(d: NodeAskDeps, p: Project): Promise<{ running: Running[]; servers: string[] }> {
  const a = await ask(d, p)(p.node!, { type: 'running', conversationId: d.conversationId ?? '', project: p.name });
  if (!a.ok) throw errorFromWire(a.error);
  if (!('running' in a)) throw notUnderstood(p);
  return { running: a.running, servers: a.servers };
}

/** The node attaches the conversation's session there to the pane; the front then follows it as the node's. */
export async function nodeAttach(
  d: ProjectCommandDeps,
  p: Project,
  ref: WirePaneRef,
): Promise<RunningPane | NodePaneRefusal> {
  const a = await ask(d, p)(p.node!, {
    type: 'attach-pane',
    conversationId: d.conversationId,
    project: p.name,
    pane: { socket: ref.socket, paneId: ref.paneId, pid: ref.pid, ...(ref.label ? { label: ref.label } : {}) },
  });
  if (!a.ok) {
    const { code, message, context } = a.error;
    if (code === 'PANE_GONE' || code === 'PANE_HELD') return { code, text: message, detail: String(context.detail) };
    throw errorFromWire(a.error);
  }
  if (!('attached' in a)) throw notUnderstood(p);
  await followNodePane(d, a.attached);
  return a.attached;
}

/** The conversation drives a pane on the node now: its session taken here, and its turns followed. */
async function followNodePane(d: ProjectCommandDeps, pane: { sessionId?: string; label: string }): Promise<void> {
  if (pane.sessionId) await takeSession(d, pane.sessionId, pane.label);
  try {
    // The attached session's turns (typed in the terminal too) come from the node: followed from now on.
    d.follow?.();
  } catch {
    // The node drives the pane already; the next message opens the session here and says what stands in the way.
  }
}

/** How long the node may take to open a terminal: a move boots a claude in a pane there, on a busy machine. */
const OPEN_TERMINAL_MS = 120_000;

/** Which way `rudder attach` opens the conversation on its node (the node's refusals thrown as it said them). */
export async function nodeTerminalWay(d: ProjectCommandDeps, p: Project): Promise<TerminalWay> {
  const q = { type: 'terminal', conversationId: d.conversationId, project: p.name, open: false } as const;
  const a = await ask(d, p)(p.node!, q);
  if (!a.ok) throw errorFromWire(a.error);
  if (!('terminal' in a)) throw notUnderstood(p);
  return a.terminal;
}

/**
 * The node opens the conversation's session in a terminal on its machine (for a move or a Codex line, the caller
 * lets no turn start meanwhile); a session moved to a pane there is followed from here as an attached one.
 */
export async function nodeOpenTerminal(d: ProjectCommandDeps, p: Project): Promise<TerminalPane | TerminalCodex> {
  const q = { type: 'terminal', conversationId: d.conversationId, project: p.name, open: true } as const;
  const a = await ask(d, p)(p.node!, q, OPEN_TERMINAL_MS);
  if (!a.ok) throw errorFromWire(a.error);
  if (!('opened' in a)) throw notUnderstood(p);
  const opened = { ...a.opened, node: p.node! };
  if (opened.way === 'pane' && opened.moved) {
    await followNodePane(d, opened);
    if (a.told) d.tell?.(d.conversationId, a.told);
  }
  return opened;
}

/**
 * The node found no other conversation driving the pane: a front session of another conversation still on its
 * session (one that let go of the pane, refused since) is stale, and let go so this one can follow it.
 */
async function takeSession(d: ProjectCommandDeps, sessionId: string, label: string): Promise<void> {
  for (const h of d.store.sessionHolders(sessionId)) {
    if (h.conversationId === d.conversationId || d.busyOther?.(h.conversationId)) continue;
    await d.releaseOther?.(h.conversationId, `pane ${label} is driven by conversation ${d.conversationId}`);
  }
  d.store.setSessionId(d.conversationId, sessionId);
}

/** The node lets go of the pane the conversation drives there; its answer is /detach's. */
export async function nodeDetach(d: ProjectCommandDeps, p: Project): Promise<string> {
  const a = await ask(d, p)(p.node!, { type: 'detach-pane', conversationId: d.conversationId, project: p.name });
  if (!a.ok) return unanswered(a.error.message);
  if (!('detached' in a)) return notUnderstood(p).message;
  // The node let go first: the front's session of it goes too, so its session id is free for another conversation.
  await d.release('detached from the pane on the node');
  return a.detached;
}
