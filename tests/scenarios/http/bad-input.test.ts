/**
 * The HTTP API under bad input: clear 4xx answers that say what was wrong, never a 500, and the
 * gateway keeps serving. The agent is not needed here: nothing valid reaches it except where noted.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import { startInProcess } from '../../support/gateway-rig.js';

let gw: Awaited<ReturnType<typeof startInProcess>>;
beforeAll(async () => {
  // The agent points nowhere: these tests must never need it.
  gw = await startInProcess({
    agent: { claudeBin: '/bin/false', env: { HOME: tempDir('chome') } },
    steering: { mode: 'followup' },
  });
});
afterAll(async () => {
  await gw?.stop();
});

const req = (p: string, init: RequestInit & { auth?: string | null } = {}) =>
  fetch(gw.ep.base + p, {
    ...init,
    headers: {
      ...(init.auth === null ? {} : { authorization: `Bearer ${init.auth ?? gw.ep.token}` }),
      ...(init.method === 'POST' ? { 'content-type': 'application/json' } : {}),
      ...(init.headers as Record<string, string>),
    },
  });

describe('HTTP API bad input', () => {
  it('answers 401 without a token or with a wrong one', async () => {
    for (const auth of [null, 'wrong', `${gw.ep.token}x`, '']) {
      const r = await req('/api/status', { auth });
      expect(r.status).toBe(401);
      expect(((await r.json()) as any).error.code).toBe('UNAUTHORIZED');
    }
    expect((await req('/healthz', { auth: null })).status).toBe(200);
  });

  it('answers 400 with the reason for bad JSON, empty text, text over 100 KB and unknown fields', async () => {
    const post = (body: string) => req('/api/conversations/bad/messages', { method: 'POST', body });
    const cases: Array<[string, RegExp]> = [
      ['{not json', /not valid JSON/],
      ['', /body is empty/],
      ['[1,2]', /must be a JSON object/],
      ['{}', /"text" is required/],
      ['{"text": 5}', /"text" is required and must be a string/],
      ['{"text": "   "}', /"text" is empty/],
      [JSON.stringify({ text: 'x'.repeat(100 * 1024 + 1) }), /over 100 KB/],
      ['{"text":"hi","admin":true}', /Unknown field\(s\): admin/],
      ['{"text":"hi","clientMessageId":""}', /clientMessageId/],
      [JSON.stringify({ text: 'before\u0000after' }), /NUL character/],
    ];
    for (const [body, reason] of cases) {
      const r = await post(body);
      expect(r.status, body.slice(0, 40)).toBe(400);
      const j = (await r.json()) as any;
      expect(j.error.code).toBe('BAD_REQUEST');
      expect(j.error.message).toMatch(reason);
    }
    const badId = await req('/api/conversations/..%2Fetc/messages', { method: 'POST', body: '{"text":"hi"}' });
    expect(badId.status).toBe(400);
    expect((await req('/api/nope')).status).toBe(404);
    expect(
      (await req('/api/conversations/x/permissions/none', { method: 'POST', body: '{"allow":true}' })).status,
    ).toBe(404);
    expect(
      (await req('/api/conversations/x/permissions/none', { method: 'POST', body: '{"allow":"yes"}' })).status,
    ).toBe(400);
  });

  it('reports the warm cap the machine gave and why: one idle process per 2 GB of available memory, 2..8', async () => {
    const s = (await (await req('/api/status')).json()) as any;
    const m = /^from (\d+\.\d) GB available memory: one per 2 GB, 2\.\.8$/.exec(s.steering.maxLiveWhy);
    expect(m, s.steering.maxLiveWhy).not.toBeNull();
    // The figure is printed rounded to 0.1 GB: the cap is one of the values either side of the rounding.
    const cap = (gb: number) => Math.min(8, Math.max(2, Math.floor(gb / 2)));
    expect([cap(Number(m![1]) - 0.05), cap(Number(m![1]) + 0.05)]).toContain(s.steering.maxLive);
  });

  it('deduplicates by clientMessageId', async () => {
    const body = JSON.stringify({ text: '/help', clientMessageId: 'same-1' });
    const a = (await (await req('/api/conversations/dup/messages', { method: 'POST', body })).json()) as any;
    const b = (await (await req('/api/conversations/dup/messages', { method: 'POST', body })).json()) as any;
    expect(a.disposition).toBe('command');
    expect(b).toEqual({ messageId: a.messageId, disposition: 'duplicate' });
  });

  /** Header values fetch can send: printable ASCII, plus a few shaped like what the header expects. */
  const headerValue = (shaped: string[]) =>
    fc.oneof(fc.constantFrom(...shaped), fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,60}$/));

  it('never answers 500 to fuzzed bodies, paths and content types', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ text: v })),
          fc.record({ text: fc.string(), clientMessageId: fc.anything() }).map((o) => JSON.stringify(o)),
        ),
        fc.constantFrom(
          '/api/conversations/f/messages',
          '/api/conversations/f/permissions/r1',
          '/api/conversations',
          '/api/conversations/%ZZ/messages',
          '/api/conversations/f/events/x',
        ),
        headerValue([
          'application/json',
          'application/json; charset=utf-16',
          'text/plain',
          'multipart/form-data; boundary=x',
          'application/x-www-form-urlencoded',
          '*/*',
        ]),
        async (body, p, contentType) => {
          const r = await req(p, { method: 'POST', body, headers: { 'content-type': contentType } });
          expect(r.status).toBeLessThan(500);
          await r.arrayBuffer();
        },
      ),
      { numRuns: 150 },
    );
    expect((await req('/healthz', { auth: null })).status).toBe(200);
  });

  it('opens the event stream whatever Last-Event-ID says', async () => {
    await fc.assert(
      fc.asyncProperty(
        headerValue(['0', '-1', '1.5', '1e3', '007', '9'.repeat(16), 'NaN', String(Number.MAX_SAFE_INTEGER)]),
        async (lastEventId) => {
          const abort = new AbortController();
          try {
            const r = await req('/api/conversations/lei/events', {
              headers: { 'last-event-id': lastEventId },
              signal: abort.signal,
            });
            expect(r.status).toBe(200);
            expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
          } finally {
            abort.abort();
          }
        },
      ),
      { numRuns: 60 },
    );
    expect((await req('/healthz', { auth: null })).status).toBe(200);
  });

  it('survives a client that disconnects mid-body', async () => {
    const net = await import('node:net');
    const { port } = new URL(gw.ep.base);
    await new Promise<void>((resolve) => {
      const s = net.connect(Number(port), '127.0.0.1', () => {
        s.write(
          `POST /api/conversations/x/messages HTTP/1.1\r\nHost: x\r\nAuthorization: ` +
            `Bearer ${gw.ep.token}\r\nContent-Length: 1000\r\n\r\n{"text":"hal`,
        );
        setTimeout(() => (s.destroy(), resolve()), 50);
      });
    });
    expect((await req('/healthz', { auth: null })).status).toBe(200);
  });
});
