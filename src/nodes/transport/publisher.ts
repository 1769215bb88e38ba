/**
 * Publishing to JetStream so that nothing is lost and nothing doubles: every message carries its
 * message id; up to WINDOW are in flight at once, in order; when one fails (the server restarts,
 * the connection is down), it and everything after it are sent again, in order, until stored. A
 * message the server already had comes back `duplicate` and counts as stored. `publish` resolves
 * once the message and every one queued before it are stored, so "stored" means "in order".
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Logger } from '../../ops/logger.js';

const WINDOW = 64;
const TIMEOUT_MS = 5_000;
const BACKOFF_MS = [100, 250, 500, 1000, 2000];

interface Entry {
  subject: string;
  data: Uint8Array;
  msgId: string;
  state: 'queued' | 'sent' | 'stored';
  resolve: () => void;
}

export class Publisher {
  private readonly queue: Entry[] = [];
  private inFlight = 0;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(
    private readonly js: JetStreamClient,
    private readonly log: Logger,
  ) {}

  publish(subject: string, data: Uint8Array, msgId: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.queue.push({ subject, data, msgId, state: 'queued', resolve });
      this.pump();
    });
  }

  /** How many messages wait to be stored. */
  pending(): number {
    return this.queue.length;
  }

  /** Resolves when everything queued so far is stored (or the publisher closed). */
  idle(): Promise<void> {
    if (this.queue.length === 0 || this.closed) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private pump(): void {
    if (this.closed || this.retryTimer) return;
    for (const e of this.queue) {
      if (this.inFlight >= WINDOW) return;
      if (e.state !== 'queued') continue;
      e.state = 'sent';
      this.inFlight++;
      this.js
        .publish(e.subject, e.data, { msgID: e.msgId, timeout: TIMEOUT_MS })
        .then(
          () => this.stored(e),
          (err: Error) => this.failed(e, err),
        )
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
  }

  private stored(e: Entry): void {
    e.state = 'stored';
    this.failures = 0;
    // Resolved in order: a message counts as stored once everything before it is.
    while (this.queue[0]?.state === 'stored') this.queue.shift()!.resolve();
    if (this.queue.length === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  private failed(e: Entry, err: Error): void {
    if (this.closed || e.state === 'stored') return;
    // Everything not stored from here on goes again, in order; the server drops what it already has.
    for (const x of this.queue) if (x.state === 'sent') x.state = 'queued';
    const wait = BACKOFF_MS[Math.min(this.failures++, BACKOFF_MS.length - 1)]!;
    if (this.failures === 1 || this.failures % 20 === 0)
      this.log.warn({ err: err.message, pending: this.queue.length, msgId: e.msgId }, 'NATS publish failed; resending');
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.pump();
    }, wait);
  }
}
