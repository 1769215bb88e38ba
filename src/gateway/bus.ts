/**
 * The event bus of conversations (gateway/events.ts: ack, text, reply, permission, error, status,
 * step, turn, message, review), each carrying the messageId it answers. Events other than streaming text
 * (and what the emitter marks ephemeral, such as status) are written to the store's event log
 * first, so the web page can replay them after a Last-Event-ID, then published (with
 * store.groupCommit, once committed).
 */
import { type Logger, silentLogger } from '../ops/logger.js';
import type { Store } from '../store/store.js';
import type { EventRow } from '../store/types.js';
import type { ConversationEvent, EventDataOf, EventType } from './events.js';
import { readEvents } from './stored-events.js';

/** A published event; `seq` is absent for ephemeral ones (streaming text, status). */
export type BusEvent = ConversationEvent;

type Listener = (e: BusEvent) => void;

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly all = new Set<Listener>();

  constructor(
    private readonly store: Store,
    private readonly log: Logger = silentLogger(),
  ) {}

  /** Persists then publishes; streaming text (and anything marked ephemeral) is published only. */
  emit<K extends EventType>(
    conversationId: string,
    type: K,
    messageId: string | null,
    data: EventDataOf[K],
    opts: { ephemeral?: boolean } = {},
  ): BusEvent {
    const stored =
      opts.ephemeral || type === 'text' ? undefined : this.store.appendEvent(conversationId, type, messageId, data);
    // `data` is of `type`'s shape: the pair is one of the union's members.
    const e = {
      ...(stored ? { seq: stored.seq } : {}),
      conversationId,
      type,
      messageId,
      data,
      createdAt: stored?.createdAt ?? Date.now(),
    } as BusEvent;
    this.send(e);
    return e;
  }

  /**
   * Publishes an event the store just logged (a delivered reply, an ack, a step), read back as any stored row is
   * (stored-events.ts); with store.groupCommit, once committed.
   */
  publish(row: EventRow): void {
    for (const e of readEvents([row], this.log)) this.send(e);
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

  private send(event: BusEvent): void {
    this.store.afterCommit(() => {
      for (const l of this.listeners.get(event.conversationId) ?? []) safe(l, event);
      for (const l of this.all) safe(l, event);
    });
  }
}

function safe(l: Listener, e: BusEvent): void {
  try {
    l(e);
  } catch {
    // One broken subscriber (a closed SSE socket) must not stop the others.
  }
}
