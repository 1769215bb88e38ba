/** A web client for the benchmarks: a conversation's event stream with the time each event arrived. */
import { type Endpoint, readEvents, type SseEvent } from '../src/cli/client.js';
import { now } from './floor/wire-tap.js';

export interface TimedEvent extends SseEvent {
  at: number;
}

export class TimedEvents {
  readonly events: TimedEvent[] = [];
  readonly ready: Promise<void>;
  private readonly abort = new AbortController();
  private readonly listeners = new Set<(e: TimedEvent) => void>();

  constructor(ep: Endpoint, conv: string) {
    let connected!: () => void;
    this.ready = new Promise((r) => (connected = r));
    void readEvents(
      ep,
      `/api/conversations/${encodeURIComponent(conv)}/events`,
      (e) => {
        const t: TimedEvent = { ...e, at: now() };
        this.events.push(t);
        if (e.event === 'status' && e.data.state === 'connected') connected();
        for (const l of this.listeners) l(t);
      },
      this.abort.signal,
    ).catch(() => undefined);
  }

  /** The first event of a type for a message (its messageId), waiting for it. */
  next(
    type: string,
    messageId: string,
    timeoutMs = 120_000,
    pred: (d: Record<string, unknown>) => boolean = () => true,
  ): Promise<TimedEvent> {
    const match = (e: TimedEvent) =>
      e.event === type &&
      (e.data.messageId === messageId || ((e.data.messageIds as string[] | undefined) ?? []).includes(messageId)) &&
      pred(e.data);
    const hit = this.events.find(match);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => (this.listeners.delete(l), reject(new Error(`no ${type} event for ${messageId} in time`))),
        timeoutMs,
      );
      const l = (e: TimedEvent) => {
        if (!match(e)) return;
        clearTimeout(timer);
        this.listeners.delete(l);
        resolve(e);
      };
      this.listeners.add(l);
    });
  }

  close(): void {
    this.abort.abort();
  }
}
