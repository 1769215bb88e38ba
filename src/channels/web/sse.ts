/**
 * Server-sent events for one conversation. Persisted events carry their store seq as the SSE id,
 * so a client reconnecting with Last-Event-ID gets everything it missed; streaming text has no id
 * (the final reply event carries the whole text). Subscribing before replaying, and skipping what
 * the replay already sent, leaves no gap between the two.
 */
import type http from 'node:http';
import type { BusEvent } from '../../gateway/bus.js';
import type { GatewayCore } from '../../gateway/core.js';

const HEARTBEAT_MS = 15_000;

function frame(e: BusEvent): string {
  const data = JSON.stringify({ messageId: e.messageId, ...e.data, ...(e.seq !== undefined ? { seq: e.seq } : {}), at: e.createdAt });
  return `${e.seq !== undefined ? `id: ${e.seq}\n` : ''}event: ${e.type}\ndata: ${data}\n\n`;
}

export function streamEvents(core: GatewayCore, conversationId: string, req: http.IncomingMessage, res: http.ServerResponse, since: number | undefined): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  let replaying = true;
  let lastSent = since ?? core.store.lastEventSeq(conversationId);
  const buffered: BusEvent[] = [];
  const write = (e: BusEvent) => {
    if (e.seq !== undefined) {
      if (e.seq <= lastSent) return;
      lastSent = e.seq;
    }
    res.write(frame(e));
  };
  const unsubscribe = core.bus.subscribe(conversationId, (e) => (replaying ? buffered.push(e) : write(e)));
  res.write(`retry: 2000\n`);
  res.write(frame({ conversationId, type: 'status', messageId: null, data: { state: 'connected', lastEventId: lastSent }, createdAt: Date.now() }));
  if (since !== undefined) {
    for (;;) {
      const batch = core.store.eventsSince(conversationId, lastSent, 500);
      for (const e of batch) write(e);
      if (batch.length < 500) break;
    }
  }
  replaying = false;
  for (const e of buffered.splice(0)) write(e);
  const beat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  beat.unref();
  const close = () => {
    clearInterval(beat);
    unsubscribe();
  };
  req.on('close', close);
  res.on('error', close);
}
