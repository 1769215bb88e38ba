/**
 * The event bus of conversations (gateway/events.ts: ack, text, reply, permission, error, status,
 * step, turn, message, review), each carrying the messageId it answers. Events other than streaming text
 * (and what the emitter marks ephemeral, such as status) are written to the store's event log
 * first, so the web page can replay them after a Last-Event-ID, then published (with
 * store.groupCommit, once committed).
 */
import type { Store } from '../store/store.js';
import type { EventRow } from '../store/types.js';
import type { ConversationEvent, EventDataOf, EventType } from './events.js';

/** A published event; `seq` is absent for ephemeral ones (streaming text, status). */
export type BusEvent = ConversationEvent;

type Listener = (e: BusEvent) => void;

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly all = new Set<Listener>();

  constructor(private readonly store: Store) {}

  /** Persists then publishes; streaming text (and anything marked ephemeral) is published only. */
  emit<K extends EventType>(
    conversationId: string,
    type: K,
    messageId: string | null,
    data: EventDataOf[K],
    opts: { ephemeral?: boolean } = {},
  ): BusEvent {
    const e =
      opts.ephemeral || type === 'text'
        ? ({ conversationId, type, messageId, data, createdAt: Date.now() } as BusEvent)
        : asBusEvent(
            this.store.appendEvent(conversationId, type, messageId, data as unknown as Record<string, unknown>),
          );
    this.publish(e);
    return e;
  }

  /** Publishes an event already written to the store (a delivered reply); with store.groupCommit, once committed. */
  publish(e: BusEvent | EventRow): void {
    const event = asBusEvent(e);
    this.store.afterCommit(() => {
      for (const l of this.listeners.get(event.conversationId) ?? []) safe(l, event);
      for (const l of this.all) safe(l, event);
    });
  }

  subscribe(conversationId: string, l: Listener): () => void {
    let set = this.listeners.get(conversationId);
    if (!set) this.listeners.set(conversationId, (set = new Set()));
    set.add(l);
    return () => {
      set.delete(l);
      if (set.size === 0) this.listeners.delete(conversationId);
    };
  }

  subscribeAll(l: Listener): () => void {
    this.all.add(l);
    return () => void this.all.delete(l);
  }
}

/** A stored row as the event it was written from (the store keeps the data as JSON). */
export function asBusEvent(e: BusEvent | EventRow): BusEvent {
  return e as unknown as BusEvent;
}

function safe(l: Listener, e: BusEvent): void {
  try {
    l(e);
  } catch {
    // One broken subscriber (a closed SSE socket) must not stop the others.
  }
}
