/**
 * The conversation list kept fresh: its items, and which conversations wait for the person (a
 * permission request open). The open conversation's waiting mark follows its own events
 * (conversation.ts); the others' is looked up when their events have moved.
 */
import { UnreachableError } from './api.js';
import { latestTurns } from './api-extra.js';
import { api, explain, getState, set } from './app-store.js';
import { waitsForYou } from './timeline.js';
import type { ListItem } from './wire-extra.js';

/** The most recently active conversations whose newest turn is checked for a waiting permission request. */
const WAITING_CHECKS = 30;

/** The last event id at which each conversation was checked for a waiting request. */
const checkedAt = new Map<string, number>();

/** A conversation the page stops following live is looked up again at the next refresh. */
export function forgetWaiting(id: string): void {
  checkedAt.delete(id);
}

export async function refreshList(): Promise<void> {
  try {
    const { conversations } = await api().conversations();
    // Before its conversation loads the page has no event stream to say the gateway is back: this answer says so.
    set((s) => ({
      conversations,
      ...(s.connection === 'unreachable' && !s.conv?.loaded ? { connection: 'connecting' } : {}),
    }));
    void checkWaiting(conversations);
    if (getState().archived) set({ archived: (await api().conversations(true)).conversations });
  } catch (err) {
    if (err instanceof UnreachableError) set({ connection: 'unreachable', connectionDetail: explain(err) });
  }
}

/**
 * Which conversations wait for the person: the list says so when the gateway sends `waiting`; else the newest turn of
 * each one whose events moved since it was last looked at (the open one is followed live).
 */
export async function checkWaiting(list: ListItem[]): Promise<void> {
  for (const c of list.slice(0, WAITING_CHECKS)) {
    if (c.id === getState().currentId) continue;
    if (typeof c.waiting === 'boolean') {
      setWaiting(c.id, c.waiting);
      continue;
    }
    if (checkedAt.get(c.id) === c.lastEventId) continue;
    checkedAt.set(c.id, c.lastEventId);
    if (!c.lastEventId) continue;
    try {
      setWaiting(c.id, waitsForYou((await latestTurns(api(), c.id)).turns));
    } catch {
      checkedAt.delete(c.id);
      return;
    }
  }
}

export function setWaiting(id: string, waiting: boolean): void {
  if (!!getState().waiting[id] !== waiting) set((s) => ({ waiting: { ...s.waiting, [id]: waiting } }));
}
