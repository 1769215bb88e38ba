/**
 * The event stream under backpressure, on a real gateway: a client that stops reading is dropped
 * once it is too far behind (its socket closes), while a client that reads gets every event; the
 * replay after Last-Event-ID goes out at the pace of a slow reader, whole and in order, and a
 * single event larger than the bound does not drop anyone.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BEHIND_BYTES } from '../../../src/http/sse.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { startInProcess } from '../../support/gateway-rig.js';

let gw: Awaited<ReturnType<typeof startInProcess>>;
beforeAll(async () => {
  gw = await startInProcess({ agent: { claudeBin: '/bin/false', env: { HOME: tempDir('chome') } } });
});
afterAll(async () => {
  await gw?.stop();
});

/** A raw SSE client: counts bytes, can stop reading, and tells when the server closed it. */
function rawStream(conv: string, lastEventId?: number) {
  const { port } = new URL(gw.ep.base);
  const s = net.connect(Number(port), '127.0.0.1');
  let bytes = 0;
  let text = '';
  let closed = false;
  const keep = lastEventId !== undefined;
  s.on('data', (d: Buffer) => {
    bytes += d.length;
    if (keep) text += d.toString('utf8');
  });
  s.on('close', () => (closed = true));
  s.on('error', () => undefined);
  s.write(
    `GET /api/conversations/${conv}/events${lastEventId === undefined ? '' : `?lastEventId=${lastEventId}`} ` +
      `HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${gw.ep.token}\r\n\r\n`,
  );
  return { socket: s, bytes: () => bytes, text: () => text, closed: () => closed };
}

const core = () => gw.gw.services;
/** Events with test data the gateway never sends (a counter, padding): the stream carries them as they are. */
const emit = (conv: string, type: 'text' | 'status', data: Record<string, unknown>) =>
  core().bus.emit(conv, type, null, data as never);
const tick = () => new Promise((r) => setImmediate(r));

describe('event stream backpressure', () => {
  it('drops a client that stops reading, and keeps serving one that reads', async () => {
    const conv = 'bp';
    const reader = gw.watch(conv);
    await reader.ready;
    const stuck = rawStream(conv);
    await waitUntil(() => stuck.bytes() > 0 && gw.gw.web!.openStreams() === 2);
    stuck.socket.pause();

    const delta = 'x'.repeat(64 * 1024);
    const count = 800; // 50 MB: far more than the socket buffers and the bound together
    for (let i = 0; i < count; i++) {
      emit(`web:${conv}`, 'text', { turnId: 't', delta, n: i });
      // The reader keeps up (it is never more than a few events behind); the stuck client does not.
      if (i % 4 === 3) await waitUntil(() => reader.of('text').length === i + 1, 10_000, 1);
    }
    // The server gave up on the stuck client; the reader stays.
    await waitUntil(() => gw.gw.web!.openStreams() === 1, 30_000);
    expect(reader.of('text').map((e) => e.data.n)).toEqual(Array.from({ length: count }, (_, i) => i));
    // The stuck client, reading again, finds its stream ended well short of everything.
    stuck.socket.resume();
    await waitUntil(() => stuck.closed(), 30_000);
    expect(stuck.bytes()).toBeLessThan(count * delta.length);
  });

  it("replays a long history at a slow reader's pace, whole and in order, then goes live", async () => {
    const conv = 'replay';
    const pad = 'y'.repeat(4000);
    const stored = 1500; // 6 MB of stored events, several replay pages
    // Stored events are read back parsed: each of a shape the gateway writes (a request's input carries the counter).
    const input = (i: number) => ({ requestId: `r${i}`, toolName: 'Test', input: { n: i, pad }, options: [] });
    for (let i = 0; i < stored; i++) core().bus.emit(`web:${conv}`, 'permission', null, input(i));
    // A single event larger than the bound does not drop the client.
    core().bus.emit(`web:${conv}`, 'message', null, { state: 'big', text: 'z'.repeat(MAX_BEHIND_BYTES * 2) });
    const slow = rawStream(conv, 0);
    // Reads in short bursts with pauses, far slower than the server could write.
    for (let i = 0; i < 40 && !slow.text().includes('"state":"big"'); i++) {
      slow.socket.pause();
      await new Promise((r) => setTimeout(r, 50));
      slow.socket.resume();
      await tick();
    }
    await waitUntil(() => slow.text().includes('"state":"big"'), 30_000);
    core().bus.emit(`web:${conv}`, 'message', null, { state: 'live-after' });
    await waitUntil(() => slow.text().includes('live-after'), 10_000);
    expect(slow.closed()).toBe(false);
    const ns = [...slow.text().matchAll(/"n":(\d+)/g)].map((m) => Number(m[1]));
    expect(ns).toEqual(Array.from({ length: stored }, (_, i) => i));
    slow.socket.destroy();
  });
});
