/**
 * What this device sends, so nothing written is lost: every message is kept on the device
 * (device.ts) before its POST, and dropped from there only once the gateway accepted it. One
 * sender posts them oldest first, one at a time, so their order holds; while the gateway cannot be
 * reached they wait and go out again by themselves (the same clientMessageId, so the gateway never
 * takes one twice). One it refused waits for the person: Retry, Edit (back into the input), Delete.
 */
import { ApiError } from './api.js';
import { api, explain, failed, getState, set, setConv, transient } from './app-store.js';
import { dropOutbox, loadOutbox, newClientMessageId, type OutboxItem, outboxOf, putOutbox } from './device.js';
import type { ConversationState } from './reduce.js';
import { addLocal, confirmLocal, dropLocal, failLocal, resendLocal } from './reduce-local.js';
import type { StreamEvent } from './types.js';

export const OFFLINE_REASON = 'Not sent yet: the gateway cannot be reached. It goes out by itself when it is back.';
const MAX_RETRY_MS = 15_000;

export interface OutboxHooks {
  /** An event held back while its message's POST was on the way. */
  replay(conversationId: string, e: StreamEvent): void;
  /** The newest history page is needed (a duplicate's state, events about messages of another device). */
  refetch(conversationId: string): void;
  /** The conversation may have a title now. */
  sent(conversationId: string): void;
}

let hooks: OutboxHooks = { replay: () => undefined, refetch: () => undefined, sent: () => undefined };
export function outboxHooks(h: OutboxHooks): void {
  hooks = h;
}

/** Client ids whose POST has not answered. */
const inflight = new Set<string>();
/** Events about messages this device does not know yet, while a POST is on the way (they may be its own). */
let held: Array<{ conversationId: string; e: StreamEvent }> = [];
let flushing: Promise<void> | undefined;
let again = false;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let retryMs = 1000;

export function posting(): boolean {
  return inflight.size > 0;
}

export function hold(conversationId: string, e: StreamEvent): void {
  held.push({ conversationId, e });
}

/** Writes a message: on the device first, on the page at once, then to the gateway. */
export function send(text: string): void {
  const c = getState().conv;
  if (!c || !text.trim()) return;
  const item: OutboxItem = {
    conversationId: c.id,
    clientMessageId: newClientMessageId(),
    text,
    createdAt: Date.now(),
  };
  putOutbox(item);
  setConv(c.id, (x) => addLocal(x, item.clientMessageId, text, item.createdAt));
  set((s) => ({ sentSeq: s.sentSeq + 1 }));
  void flush();
}

/** The messages of a conversation this device has not got through yet, as the page shows them after a reload. */
export function withUnsent(c: ConversationState): ConversationState {
  let next = c;
  for (const item of outboxOf(c.id)) {
    if (next.messages.has(item.clientMessageId)) continue;
    next = addLocal(
      next,
      item.clientMessageId,
      item.text,
      item.createdAt,
      item.failed ? { unsent: 'failed', reason: item.failed } : { unsent: 'offline', reason: OFFLINE_REASON },
    );
  }
  return next;
}

/** Sends what waits, oldest first and one at a time; stops at the first that cannot reach the gateway. */
export function flush(): Promise<void> {
  if (flushing !== undefined) {
    again = true;
    return flushing;
  }
  flushing = (async () => {
    do {
      again = false;
      for (const item of loadOutbox()) {
        if (item.failed || inflight.has(item.clientMessageId)) continue;
        if (!(await post(item))) return waitAll();
      }
    } while (again);
  })().finally(() => {
    flushing = undefined;
  });
  return flushing;
}

/** The gateway is away: everything behind the one that failed waits with it, and says so. */
function waitAll(): void {
  for (const item of loadOutbox())
    if (!item.failed && !inflight.has(item.clientMessageId))
      setConv(item.conversationId, (x) =>
        x.messages.get(item.clientMessageId)?.unsent
          ? x
          : failLocal(x, item.clientMessageId, 'offline', OFFLINE_REASON),
      );
}

function retryLater(): void {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => void flush(), retryMs);
  retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
}

/** One POST; false when the gateway could not be reached (the rest waits with it). */
async function post(item: OutboxItem): Promise<boolean> {
  const id = item.clientMessageId;
  const conv = item.conversationId;
  inflight.add(id);
  setConv(conv, (x) => (x.messages.get(id)?.unsent ? resendLocal(x, id) : x));
  let messageId: string | undefined;
  try {
    const r = await api().send(conv, item.text, id);
    messageId = r.messageId;
    dropOutbox(id);
    retryMs = 1000;
    setConv(conv, (x) => confirmLocal(x, id, r.messageId, r.disposition, r.reason));
    // Already accepted before (its answer was lost on the way): what happened to it since is in the history.
    if (r.disposition === 'duplicate') hooks.refetch(conv);
    hooks.sent(conv);
    return true;
  } catch (err) {
    if (transient(err) || (err instanceof ApiError && err.status === 401)) {
      setConv(conv, (x) => failLocal(x, id, 'offline', OFFLINE_REASON));
      // The event stream says whether the gateway is reachable; a POST failing beside a live stream does not.
      if (getState().connection !== 'live') failed(err);
      retryLater();
      return false;
    }
    const reason = explain(err);
    if (loadOutbox().some((x) => x.clientMessageId === id)) putOutbox({ ...item, failed: reason });
    setConv(conv, (x) => failLocal(x, id, 'failed', reason));
    return true;
  } finally {
    inflight.delete(id);
    release(messageId);
  }
}

/** Applies the held events about the message just confirmed; the rest came from another device once nothing is sent. */
function release(messageId: string | undefined): void {
  const mine = held.filter((h) => h.e.data.messageId === messageId);
  held = held.filter((h) => h.e.data.messageId !== messageId);
  for (const h of mine) hooks.replay(h.conversationId, h.e);
  if (!inflight.size && held.length) {
    const convs = new Set(held.map((h) => h.conversationId));
    held = [];
    for (const c of convs) hooks.refetch(c);
  }
}

function itemOf(localId: string): OutboxItem | undefined {
  return loadOutbox().find((x) => x.clientMessageId === localId);
}

/** Retry: the same message (the same client id) goes out again. */
export function retry(localId: string): void {
  const item = itemOf(localId);
  if (!item) return;
  putOutbox({ ...item, failed: undefined });
  retryMs = 1000;
  setConv(item.conversationId, (x) => resendLocal(x, localId));
  set((s) => ({ sentSeq: s.sentSeq + 1 }));
  void flush();
}

/** Delete: it never reaches the gateway. */
export function discard(localId: string): void {
  const item = itemOf(localId);
  dropOutbox(localId);
  if (item) setConv(item.conversationId, (x) => dropLocal(x, localId));
}

/** Edit: the text goes back into the input (after what is there), the unsent copy is dropped. */
export function takeBack(localId: string): string | undefined {
  const item = itemOf(localId);
  if (!item || inflight.has(localId)) return undefined;
  discard(localId);
  return item.text;
}
