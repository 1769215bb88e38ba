/**
 * /sessions and /resume for a project that lives on a node: its Claude Code sessions are files on
 * that machine and its Codex threads are on the app-server there, so the node lists them (a query
 * over NATS, nothing durable) and the front shows them as it shows its own. A node that does not
 * answer is said so, with what to do.
 */
import type { ProjectCommandDeps } from './command-deps.js';
import { CLAUDE_SESSIONS, type PastSessions } from './past-sessions.js';
import type { Project } from './projects.js';
import type { OpenBy } from './sessions.js';

/** What a chat answer adds to a node's own words when it did not answer: what to do. */
export const unanswered = (message: string) => `${message} Try again when it is back (/nodes shows it).`;

/** Where a project is, for a person: its directory, or the node it lives on. */
export function where(p: Project): string {
  return p.node ? `on node ${p.node}` : p.path;
}

function noNodes(p: Project): string {
  return `Project ${p.name} lives on node ${p.node}, but this Rudder has no nodes section.`;
}

export async function nodeSessionList(
  d: ProjectCommandDeps,
  p: Project,
  limit: number,
): Promise<PastSessions | string> {
  if (!d.askNode) return noNodes(p);
  const a = await d.askNode(p.node!, { type: 'sessions', conversationId: d.conversationId, project: p.name, limit });
  if (!a.ok) return unanswered(a.error.message);
  if (!('sessions' in a)) return `Node ${p.node} gave an answer Rudder does not understand.`;
  const sessions = a.sessions.map((s) => ({
    id: s.id,
    file: '',
    updatedAt: s.updatedAt,
    ...(s.firstPrompt ? { firstPrompt: s.firstPrompt } : {}),
    ...(s.lastMessage ? { lastMessage: s.lastMessage } : {}),
    ...(s.openPid ? { openBy: { pid: s.openPid, entrypoint: `node:${p.node}` } } : {}),
  }));
  // A node from before Codex threads were listed names no noun: its lists are Claude Code's.
  return { noun: a.noun ?? CLAUDE_SESSIONS, sessions };
}

/** Whether the node has the session in the project, and which process there has it open. */
export async function nodeSessionFacts(
  d: ProjectCommandDeps,
  p: Project,
  id: string,
): Promise<{ known: boolean; open: OpenBy | undefined } | string> {
  if (!d.askNode) return noNodes(p);
  const a = await d.askNode(p.node!, {
    type: 'has-session',
    conversationId: d.conversationId,
    project: p.name,
    sessionId: id,
  });
  if (!a.ok) return unanswered(a.error.message);
  if (!('has' in a) || !a.has) return { known: false, open: undefined };
  const list = await nodeSessionList(d, p, 50);
  const open = typeof list === 'string' ? undefined : list.sessions.find((s) => s.id === id)?.openBy;
  return { known: true, open };
}
