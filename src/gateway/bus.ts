/**
 * The event bus of conversations: ack, text, reply, permission, error and status events, each
 * carrying the messageId it answers. Events other than streaming text are written to the store's
 * event log first (so the web page can replay them after a Last-Event-ID), then published.
 */
import type { Store } from '../store/store.js';
import type { EventRow, EventType } from '../store/types.js';

/** A published event; `seq` is absent for ephemeral ones (streaming text). */
export interface BusEvent {
  seq?: number;
  conversationId: string;
  type: EventType;
  messageId: string | null;
  data: Record<string, unknown>;
  createdAt: number;
}

type Listener = (e: BusEvent) => void;

export class EventBus {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly all = new Set<Listener>();

  constructor(private readonly store: Store) {}

  /** Persists then publishes; streaming text (and anything marked ephemeral) is published only. */
  emit(
    conversationId: string,
    type: EventType,
    messageId: string | null,
    data: Record<string, unknown>,
    opts: { ephemeral?: boolean } = {},
  ): BusEvent {
    const ephemeral = opts.ephemeral || type === 'text';
    const e: BusEvent = ephemeral
      ? { conversationId, type, messageId, data, createdAt: Date.now() }
      : this.store.appendEvent(conversationId, type, messageId, data);
    this.publish(e);
    return e;
  }

  /**
   * Publishes an event already written to the store (e.g. a delivered reply); with store.groupCommit, once committed.
   */
  publish(e: BusEvent | EventRow): void {
    this.store.afterCommit(() => {
      for (const l of this.listeners.get(e.conversationId) ?? []) safe(l, e);
      for (const l of this.all) safe(l, e);
    });
  }

  subscribe(conversationId: string, l: Listener): () => void {
    let set = this.listeners.get(conversationId);
    if (!set) this.listeners.set(conversationId, (set = new Set()));
    set.add(l);
    return () => {
      set!.delete(l);
      if (set!.size === 0) this.listeners.delete(conversationId);
    };
  }

  subscribeAll(l: Listener): () => void {
    this.all.add(l);
    return () => void this.all.delete(l);
  }
}

function safe(l: Listener, e: BusEvent): void {
  try {
    l(e);
  } catch {
    // One broken subscriber (a closed SSE socket) must not stop the others.
  }
}
