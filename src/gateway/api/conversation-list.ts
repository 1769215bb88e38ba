/**
 * The web app's conversation list: a title (given, or the first message's), the last activity,
 * an unread mark (a reply after the last event the person saw), and archived ones listed apart.
 */
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import type { ConversationRow } from '../../store/types.js';
import type { PermissionDesk } from '../permissions/desk.js';
import type { ConversationItem } from './types.js';

type Deps = { store: Store; projects: Projects; desk: PermissionDesk };

/** Longest title kept; a title from the first message is its first line, cut shorter. */
export const MAX_TITLE = 200;
const AUTO_TITLE = 60;

export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]!.trim().replace(/\s+/g, ' ');
  return line.length > AUTO_TITLE ? `${line.slice(0, AUTO_TITLE - 1)}…` : line;
}

export function conversationItem(d: Deps, c: ConversationRow): ConversationItem {
  const a = d.store.history.activity(c.id);
  const project = d.projects.peek(c.id);
  return {
    id: c.key,
    title: c.title ?? (a.firstText ? titleFrom(a.firstText) : null),
    createdAt: c.createdAt,
    lastActivityAt: Math.max(a.lastActivityAt ?? 0, c.createdAt),
    unread: a.lastReplySeq > c.lastReadSeq,
    archived: c.archivedAt !== null,
    lastEventId: a.lastEventSeq,
    sessionId: c.sessionId,
    project: project.name,
    branch: d.projects.worktreeOf(c.id, project.name)?.branch ?? null,
    waiting: d.desk.pending(c.id) !== undefined,
    muted: d.store.push.isMuted(c.id),
  };
}

/** Active (or archived) web conversations, the most recently active first. */
export function listConversations(d: Deps, channel: string, archived: boolean): ConversationItem[] {
  return d.store
    .conversations(channel)
    .filter((c) => (c.archivedAt !== null) === archived)
    .map((c) => conversationItem(d, c))
    .sort((x, y) => y.lastActivityAt - x.lastActivityAt);
}

/** A conversation's first message names it, unless it has a title already (commands do not count). */
export function titleFromFirstMessage(d: Deps, conversationId: string, text: string): void {
  const conv = d.store.conversation(conversationId);
  if (conv && conv.title === null && text.trim() && !text.trim().startsWith('/'))
    d.store.setTitle(conversationId, titleFrom(text));
}
