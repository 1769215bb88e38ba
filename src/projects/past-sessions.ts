/**
 * The past sessions of a project, for /sessions and /resume, here or on a node: Claude Code's, read
 * from its files (sessions.ts), or, when the project's agent lists its own (Codex's threads), asked of
 * it (agents/history.ts). Both come out as one numbered list, told apart only by what it is called.
 */
import type { PastSession, SessionHistory } from '../agents/history.js';
import { type CliSession, hasSession, listSessions, type OpenBy, openSessions, unwrap } from './sessions.js';

export const CLAUDE_SESSIONS = 'Claude Code sessions';

export interface PastSessions {
  /** What the list is called for a person: "Claude Code sessions", "Codex threads". */
  noun: string;
  sessions: CliSession[];
}

/** Where to look: the agent's own list, when it keeps one, else Claude Code's files in its config dir. */
export interface SessionSource {
  history: SessionHistory | undefined;
  configDir: string;
}

/** The sessions that worked in these directories, most recently used first. */
export async function pastSessions(from: SessionSource, dirs: string[], limit: number): Promise<PastSessions> {
  if (!from.history) return { noun: CLAUDE_SESSIONS, sessions: listSessions(from.configDir, dirs, limit) };
  const listed = await from.history.list(dirs, limit);
  return { noun: from.history.noun, sessions: listed.map(listedAs) };
}

/** An agent's session as a Claude Code one is listed: what it began with, without Rudder's wrapper. */
export function listedAs(s: PastSession): CliSession {
  const first = s.preview ? unwrap(s.preview) : '';
  return { id: s.id, file: '', updatedAt: s.updatedAt, ...(first ? { firstPrompt: first } : {}) };
}

/** Whether session `id` is one of these directories', and which process has it open (Claude Code's only). */
export async function knownSession(
  from: SessionSource,
  dirs: string[],
  id: string,
): Promise<{ known: boolean; open: OpenBy | undefined }> {
  if (!from.history) return { known: hasSession(from.configDir, dirs, id), open: openSessions(from.configDir).get(id) };
  // An agent's own sessions are open in its server, where only Rudder's conversations hold them (the store says).
  return { known: await from.history.has(dirs, id), open: undefined };
}
