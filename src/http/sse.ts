/**
 * Server-sent events for one conversation. Persisted events carry their store seq as the SSE id,
 * so a client reconnecting with Last-Event-ID gets everything it missed; streaming text has no id
 * (the final reply event carries the whole text). Subscribing before replaying, and skipping what
 * the replay already sent, leaves no gap between the two.
 *
 * Writes honour backpressure: the replay is read from the store a page at a time and written at
 * the pace the socket drains; a client that falls further behind on live events than
 * MAX_BEHIND_BYTES, or does not drain for STALL_MS, is dropped (it reconnects with Last-Event-ID
 * and misses nothing stored). One event larger than the bound alone never drops a client.
 */
import type http from 'node:http';
import type { BusEvent } from '../gateway/bus.js';
import type { Logger } from '../ops/logger.js';

const HEARTBEAT_MS = 15_000;
const REPLAY_PAGE = 200;
/** Bytes written but not yet taken by the client's socket, at most. */
export const MAX_BEHIND_BYTES = 256 * 1024;
/** A socket that has not drained for this long belongs to a client that has stopped reading. */
const STALL_MS = 60_000;

/** A conversation's events as a stream reads them: the newest seq, a page after one, and the live ones. */
export interface EventFeed {
  conversationId: string;
  lastSeq(): number;
  since(seq: number, limit: number): BusEvent[];
  subscribe(l: (e: BusEvent) => void): () => void;
}

function frame(e: BusEvent): string {
  const data = JSON.stringify({
    messageId: e.messageId,
    ...e.data,
    ...(e.seq !== undefined ? { seq: e.seq } : {}),
    at: e.createdAt,
  });
  return `${e.seq !== undefined ? `id: ${e.seq}\n` : ''}event: ${e.type}\ndata: ${data}\n\n`;
}

/** Writes to one response without letting its buffer grow: queued while the socket is full, dropped past the limit. */
class BoundedWriter {
  private blockedSince: number | undefined;
  private readonly waiters: Array<() => void> = [];
  closed = false;

  constructor(
    private readonly res: http.ServerResponse,
    private readonly onDrop: (why: string) => void,
  ) {
    res.on('drain', () => {
      this.blockedSince = undefined;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** A live write: dropped when the client is already further behind than the bound. */
  write(chunk: string): void {
    if (this.closed) return;
    if (this.res.writableLength > MAX_BEHIND_BYTES) return this.drop(`${this.res.writableLength} bytes behind`);
    if (!this.res.write(chunk)) this.blockedSince ??= Date.now();
  }

  /** A replay write: waits for the socket to drain instead. */
  async paced(chunk: string): Promise<void> {
    await this.drained();
    if (this.closed) return;
    if (!this.res.write(chunk)) this.blockedSince ??= Date.now();
  }

  blocked(): boolean {
    return this.blockedSince !== undefined;
  }

  stalled(now: number): boolean {
    return this.blockedSince !== undefined && now - this.blockedSince > STALL_MS;
  }

  /** Resolves once the socket has taken what was written (or the stream closed). */
  drained(): Promise<void> {
    if (!this.blocked() || this.closed) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  drop(why: string): void {
    if (this.closed) return;
    this.close();
    this.onDrop(why);
    this.res.destroy();
  }

  close(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w();
  }
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

/** Streams a conversation's events to one client; `open` holds the streams open now (for shutdown and tests). */
export function streamEvents(
  feed: EventFeed,
  log: Logger,
  open: Set<http.ServerResponse>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  since: number | undefined,
): void {
  res.writeHead(200, SSE_HEADERS);
  open.add(res);
  const stream = new EventStream(feed, res, since, (why) =>
    log.info(
      { conversationId: feed.conversationId, why },
      'event stream dropped: the client is not reading; it can reconnect with Last-Event-ID',
    ),
  );
  const close = () => {
    stream.close();
    open.delete(res);
  };
  req.on('close', close);
  res.on('close', close);
  res.on('error', close);
  stream.greet();
  void stream.replay();
}

/** One client's stream: subscribed before the replay, live events held back until the replay is written. */
class EventStream {
  private readonly out: BoundedWriter;
  private replaying = true;
  /** The newest seq this client has been sent. */
  private lastSent: number;
  private readonly buffered: BusEvent[] = [];
  private bufferedBytes = 0;
  private readonly unsubscribe: () => void;
  private readonly beat: NodeJS.Timeout;

  constructor(
    private readonly feed: EventFeed,
    res: http.ServerResponse,
    private readonly since: number | undefined,
    onDrop: (why: string) => void,
  ) {
    this.out = new BoundedWriter(res, onDrop);
    this.lastSent = since ?? feed.lastSeq();
    this.unsubscribe = feed.subscribe((e) => this.live(e));
    this.beat = setInterval(() => this.heartbeat(), HEARTBEAT_MS);
    this.beat.unref();
  }

  /** The reconnect delay, and the seq this stream starts after. */
  greet(): void {
    this.out.write(`retry: 2000\n`);
    this.out.write(
      frame({
        conversationId: this.feed.conversationId,
        type: 'status',
        messageId: null,
        data: { state: 'connected', lastEventId: this.lastSent },
        createdAt: Date.now(),
      }),
    );
  }

  /** What the client missed since Last-Event-ID, a page at a time, then the live events held meanwhile. */
  async replay(): Promise<void> {
    if (this.since !== undefined) {
      for (;;) {
        const batch = this.feed.since(this.lastSent, REPLAY_PAGE);
        for (const e of batch) {
          if (!this.fresh(e)) continue;
          // Paced: what the socket has not taken yet is never more than one event.
          if (this.out.blocked()) await this.out.paced(frame(e));
          else this.out.write(frame(e));
          if (this.out.closed) return;
        }
        if (batch.length < REPLAY_PAGE) break;
      }
    }
    this.replaying = false;
    for (const e of this.buffered.splice(0)) this.write(e);
  }

  close(): void {
    clearInterval(this.beat);
    this.unsubscribe();
    this.out.close();
  }

  private live(e: BusEvent): void {
    if (!this.replaying) return this.write(e);
    // Live events wait for the replay to finish, within the same bound.
    this.buffered.push(e);
    this.bufferedBytes += JSON.stringify(e.data).length;
    if (this.bufferedBytes > MAX_BEHIND_BYTES) this.out.drop('too many live events during the replay');
  }

  private heartbeat(): void {
    if (this.out.stalled(Date.now())) this.out.drop(`not drained for ${STALL_MS / 1000} s`);
    else if (!this.out.blocked()) this.out.write(': keep-alive\n\n');
  }

  /** True when the event is new to this client (and marks it sent). */
  private fresh(e: BusEvent): boolean {
    if (e.seq === undefined) return true;
    if (e.seq <= this.lastSent) return false;
    this.lastSent = e.seq;
    return true;
  }

  private write(e: BusEvent): void {
    if (this.fresh(e)) this.out.write(frame(e));
  }
}
