/**
 * The conversation list kept fresh: its items, and which conversations wait for the person (a
 * permission request open: the list's `waiting`). The open conversation's mark follows its own
 * events (conversation.ts).
 */
import { UnreachableError } from './api.js';
import { api, explain, getState, set } from './app-store.js';
import type { ConversationItem } from './types.js';

export async function refreshList(): Promise<void> {
  try {
    const { conversations } = await api().conversations();
    // Before its conversation loads the page has no event stream to say the gateway is back: this answer says so.
    set((s) => ({
      conversations,
      ...(s.connection === 'unreachable' && !s.conv?.loaded ? { connection: 'connecting' } : {}),
    }));
    markWaiting(conversations);
    if (getState().archived) set({ archived: (await api().conversations(true)).conversations });
  } catch (err) {
    if (err instanceof UnreachableError) set({ connection: 'unreachable', connectionDetail: explain(err) });
  }
}

/** The list's waiting marks, but for the open conversation, whose own events are fresher. */
export function markWaiting(list: ConversationItem[]): void {
  for (const c of list) if (c.id !== getState().currentId) setWaiting(c.id, c.waiting);
}

export function setWaiting(id: string, waiting: boolean): void {
  if (!!getState().waiting[id] !== waiting) set((s) => ({ waiting: { ...s.waiting, [id]: waiting } }));
}
