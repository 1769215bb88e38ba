/**
 * /resume --force of a session another conversation holds: one session, one conversation, so the
 * holders give it up (their next turn starts a new session), their live process is stopped, and
 * they are told, when the gateway passes the means (ProjectCommandDeps.releaseOther, tell).
 */
import type { Store } from '../store/store.js';
import type { ProjectCommandDeps } from './command-deps.js';

const clip = (s: string, n: number) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

/** A conversation as a person knows it: “its title” (its id), or its id. */
export function nameOf(store: Store, conversationId: string): string {
  const title = store.conversation(conversationId)?.title;
  return title ? `“${clip(title, 40)}” (${conversationId})` : conversationId;
}

/** Takes session `id` from its holders; returns the sentence that says so, for the reply. */
export async function moveSession(
  d: ProjectCommandDeps,
  holders: Array<{ conversationId: string; project: string | null }>,
  id: string,
): Promise<string> {
  if (!holders.length) return '';
  const here = nameOf(d.store, d.conversationId);
  const untold: string[] = [];
  for (const h of holders) {
    if (h.project) d.store.setProjectSession(h.conversationId, h.project, null);
    if (d.store.conversation(h.conversationId)?.sessionId === id) d.store.setSessionId(h.conversationId, null);
    await d.releaseOther?.(h.conversationId, `session ${id} moved to conversation ${d.conversationId}`);
    const note =
      `ⓘ Session ${id} was moved to conversation ${here} (/resume --force there). This conversation starts ` +
      'a new session at its next message.';
    if (d.tell) d.tell(h.conversationId, note);
    else untold.push(nameOf(d.store, h.conversationId));
  }
  const from = holders.map((h) => nameOf(d.store, h.conversationId)).join(', ');
  return (
    ` It was moved from conversation ${from}, which starts a new session at its next message` +
    `${untold.length ? ' (it was not told: tell it yourself)' : ' and was told so'}.`
  );
}
