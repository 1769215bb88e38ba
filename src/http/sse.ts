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

/** Streams a conversation's events to one client; `open` holds the streams open now (for shutdown and tests). */
export function streamEvents(
  feed: EventFeed,
  log: Logger,
  open: Set<http.ServerResponse>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  since: number | undefined,
): void {
  const { conversationId } = feed;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  open.add(res);
  const out = new BoundedWriter(res, (why) =>
    log.info(
      { conversationId, why },
      'event stream dropped: the client is not reading; it can reconnect with Last-Event-ID',
    ),
  );
  let replaying = true;
  let lastSent = since ?? feed.lastSeq();
  const buffered: BusEvent[] = [];
  let bufferedBytes = 0;
  /** True when the event is new to this client (and marks it sent). */
  const fresh = (e: BusEvent) => {
    if (e.seq === undefined) return true;
    if (e.seq <= lastSent) return false;
    lastSent = e.seq;
    return true;
  };
  const write = (e: BusEvent) => {
    if (fresh(e)) out.write(frame(e));
  };
  const unsubscribe = feed.subscribe((e) => {
    if (!replaying) return write(e);
    // Live events wait for the replay to finish, within the same bound.
    buffered.push(e);
    bufferedBytes += JSON.stringify(e.data).length;
    if (bufferedBytes > MAX_BEHIND_BYTES) out.drop('too many live events during the replay');
  });
  const beat = setInterval(() => {
    if (out.stalled(Date.now())) out.drop(`not drained for ${STALL_MS / 1000} s`);
    else if (!out.blocked()) out.write(': keep-alive\n\n');
  }, HEARTBEAT_MS);
  beat.unref();
  const close = () => {
    clearInterval(beat);
    unsubscribe();
    out.close();
    open.delete(res);
  };
  req.on('close', close);
  res.on('close', close);
  res.on('error', close);

  out.write(`retry: 2000\n`);
  out.write(
    frame({
      conversationId,
      type: 'status',
      messageId: null,
      data: { state: 'connected', lastEventId: lastSent },
      createdAt: Date.now(),
    }),
  );
  void (async () => {
    if (since !== undefined) {
      for (;;) {
        const batch = feed.since(lastSent, REPLAY_PAGE);
        for (const e of batch) {
          if (!fresh(e)) continue;
          // Paced: what the socket has not taken yet is never more than one event.
          if (out.blocked()) await out.paced(frame(e));
          else out.write(frame(e));
          if (out.closed) return;
        }
        if (batch.length < REPLAY_PAGE) break;
      }
    }
    replaying = false;
    for (const e of buffered.splice(0)) write(e);
  })();
}
