/**
 * The HTTP API fuzzed as an attacker would: random methods, paths (well-formed and with malformed
 * percent-encoding), Host and Origin headers, content types, tokens and bodies, 5,000 requests.
 * Never a 5xx; the guards answer in their order (400 malformed target, 421 foreign Host, 403
 * foreign Origin, 401 no token, 415 not JSON); every answer carries the security headers; and
 * raw request lines Node's parser rejects get a 400 or a closed socket, never a crash.
 */
import http from 'node:http';
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import { startInProcess } from '../../support/gateway-rig.js';

let gw: Awaited<ReturnType<typeof startInProcess>>;
let port: number;
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
/** Requests go out in concurrent batches: 200 runs of 25 is the 5,000 requests, in a fraction of the time. */
const BATCH = 25;

beforeAll(async () => {
  // The agent points nowhere, and messages that get through wait in a long collect window: the
  // fuzz measures the HTTP edge, not thousands of agent spawns.
  gw = await startInProcess({
    agent: { claudeBin: '/bin/false', env: { HOME: tempDir('chome') } },
    steering: { mode: 'collect', collectWindowMs: 60_000 },
    web: { port: 0, allowedHosts: ['proxy.example'] },
  });
  port = Number(new URL(gw.ep.base).port);
});
afterAll(async () => {
  agent.destroy();
  await gw?.stop();
});

type HostKind = 'ours' | 'foreign';
type Case = {
  method: string;
  segments: string[];
  malformed: boolean;
  query: string;
  host: { kind: HostKind; value: string };
  origin: { kind: 'none' | 'ours' | 'foreign'; value?: string };
  auth: 'none' | 'header' | 'wrong' | 'query';
  contentType: { json: boolean; value?: string };
  body?: string;
};

const MALFORMED = ['%', '%Z', '%ZZ', '%E0%A4', '%C0%AF', '%ED%A0%80', '%F4%90%80%80', 'a%', '%%', '%2'];
const segment = fc.oneof(
  fc.constantFrom(
    'api',
    'conversations',
    'events',
    'messages',
    'permissions',
    'status',
    'channels',
    'healthz',
    '..',
    '.',
    'c-1',
    'fuzz',
  ),
  fc.string({ unit: 'binary-ascii', maxLength: 12 }).map(encodeURIComponent),
  fc.string({ unit: 'grapheme', maxLength: 6 }).map(encodeURIComponent),
);
const routes = fc.oneof(
  fc
    .tuple(fc.constantFrom('f1', 'f2', 'x.y', ''), fc.constantFrom('messages', 'events', 'permissions'))
    .map(([id, sub]) => ['api', 'conversations', id, sub].filter(Boolean)),
  fc.constantFrom(['api', 'status'], ['api', 'conversations'], ['api', 'channels'], ['healthz'], []),
  fc.constantFrom(
    ['api', 'push'],
    ['api', 'push', 'subscriptions'],
    ['api', 'push', 'presence'],
    ['api', 'push', 'action'],
  ),
  fc.array(segment, { maxLength: 5 }),
);
const path = fc.oneof(
  { weight: 3, arbitrary: routes.map((segments) => ({ segments, malformed: false })) },
  {
    weight: 1,
    arbitrary: fc.tuple(routes, fc.constantFrom(...MALFORMED), fc.nat()).map(([segs, bad, at]) => {
      const segments = [...segs];
      segments.splice(at % (segments.length + 1), 0, bad);
      return { segments, malformed: true };
    }),
  },
);
const contentType = fc.oneof(
  fc
    .constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON')
    .map((value) => ({ json: true, value })),
  fc
    .oneof(
      fc.constant(undefined),
      fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=utf-16',
        'application/jsonp',
      ),
      fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,40}$/).filter((v) => !/^\s*application\/json\s*(;|$)/i.test(v)),
    )
    .map((value) => ({ json: false, value })),
);
const body = fc.oneof(
  fc.string(),
  fc.json(),
  fc.jsonValue().map((v) => JSON.stringify({ text: v })),
  fc.constantFrom('{"text":"/help"}', '{"allow":true}', '{"title":"t"}', '{"token":"a.b"}', '{"viewer":"x"}', ''),
);
const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom('?lastEventId=0', '?lastEventId=-1', '?lastEventId=%ZZ', '?a=%', '?token=', '?x=1&y'),
  fc.string({ unit: 'binary-ascii', maxLength: 10 }).map((s) => `?q=${encodeURIComponent(s)}`),
);

/** Requests against the gateway on `port` (the names it answers to depend on it). */
function requests(port: number): fc.Arbitrary<Case> {
  const host = fc.oneof(
    fc
      .constantFrom<HostKind>('ours')
      .chain((kind) =>
        fc
          .constantFrom(`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'proxy.example', 'proxy.example:443')
          .map((value) => ({ kind, value })),
      ),
    fc.constantFrom<HostKind>('foreign').chain((kind) =>
      fc
        .oneof(
          fc.constantFrom(
            'attacker.example',
            `attacker.example:${port}`,
            `127.0.0.1:${port + 1}`,
            '127.0.0.1',
            `10.0.0.1:${port}`,
            `localhost.:${port}`,
            '',
            `[::2]:${port}`,
          ),
          fc
            .stringMatching(/^[a-z0-9-]{1,20}\.(test|example)(:\d{1,5})?$/)
            .filter((h) => !/^proxy\.example(:|$)/.test(h)),
        )
        .map((value) => ({ kind, value })),
    ),
  );
  const ourOrigins = () => [
    `http://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    'https://proxy.example',
    'http://proxy.example',
  ];
  const origin = fc.oneof(
    fc.constant({ kind: 'none' as const }),
    fc
      .constantFrom(`http://127.0.0.1:${port}`, `http://localhost:${port}`, 'https://proxy.example')
      .map((value) => ({ kind: 'ours' as const, value })),
    fc
      .oneof(
        fc.constantFrom(
          'null',
          'http://attacker.example',
          `http://attacker.example:${port}`,
          'file://',
          `https://127.0.0.1:${port}`,
          'garbage',
        ),
        fc.webUrl().filter((u) => !ourOrigins().includes(new URL(u).origin)),
      )
      .map((value) => ({ kind: 'foreign' as const, value })),
  );
  return fc
    .record({
      method: fc.constantFrom('GET', 'GET', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      path,
      query,
      host,
      origin,
      auth: fc.constantFrom('none', 'header', 'header', 'header', 'wrong', 'query'),
      contentType,
      body,
    })
    .map(
      ({ path: p, ...rest }) =>
        ({
          ...rest,
          segments: p.segments,
          malformed: p.malformed,
          body: rest.method === 'POST' || rest.method === 'PUT' ? rest.body : undefined,
        }) as Case,
    );
}

function send(c: Case): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  const query =
    c.auth === 'query' ? `?token=${encodeURIComponent(gw.ep.token)}${c.query.replace(/^\?/, '&')}` : c.query;
  const target = `/${c.segments.join('/')}${query}`;
  const headers: Record<string, string> = { host: c.host.value };
  if (c.auth === 'header') headers.authorization = `Bearer ${gw.ep.token}`;
  if (c.auth === 'wrong') headers.authorization = 'Bearer not-the-token';
  if (c.origin.value !== undefined) headers.origin = c.origin.value;
  if (c.contentType.value !== undefined) headers['content-type'] = c.contentType.value;
  if (c.body !== undefined) headers['content-length'] = String(Buffer.byteLength(c.body));
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: c.method,
      path: target,
      headers,
      setHost: false,
      agent,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const out = { status: res.statusCode ?? 0, headers: res.headers };
      // An event stream stays open: its headers are the answer.
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        res.destroy();
        return resolve(out);
      }
      res.resume();
      res.on('end', () => resolve(out));
      res.on('error', reject);
    });
    req.end(c.body);
  });
}

/** POST /api/push/action: a notification's button, whose signed token in the body is its credential. */
function isAction(c: Case): boolean {
  const segs = c.segments.filter(Boolean).map(decodeURIComponent);
  return c.method === 'POST' && segs.length === 3 && segs[0] === 'api' && segs[1] === 'push' && segs[2] === 'action';
}

/** The first guard a request fails, in the order the web channel checks them; undefined when it passes them all. */
function expectedRefusal(c: Case): number | undefined {
  if (c.malformed) return 400;
  if (c.host.kind === 'foreign') return 421;
  const pathname = `/${c.segments.join('/')}`;
  if (pathname === '/healthz') return undefined;
  const segs = c.segments.filter(Boolean).map(decodeURIComponent);
  // Outside /api are the web app's files: a file, a 404 or a 405, never a guard of the API.
  if (segs[0] !== 'api') return undefined;
  if (c.origin.kind === 'foreign') return 403;
  const isEvents = c.method === 'GET' && segs.length === 4 && segs[1] === 'conversations' && segs[3] === 'events';
  // A notification's button carries a signed token of its own, in the body: no bearer token is asked.
  const authed = c.auth === 'header' || (c.auth === 'query' && isEvents) || isAction(c);
  if (!authed) return 401;
  if (['POST', 'PATCH', 'PUT'].includes(c.method) && !c.contentType.json) return 415;
  return undefined;
}

describe('HTTP API, fuzzed', () => {
  it('never answers 5xx in 5,000 random requests, and its guards answer in order', async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(requests(port), { minLength: BATCH, maxLength: BATCH }), async (cases) => {
        const answers = await Promise.all(cases.map(send));
        cases.forEach((c, i) => {
          const r = answers[i]!;
          seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
          expect(r.status).toBeLessThan(500);
          const refusal = expectedRefusal(c);
          if (refusal !== undefined) expect(r.status).toBe(refusal);
          // Past the guards, only the API answers: never one of the guards' codes (a button's bad token is a 401).
          else expect(isAction(c) ? [403, 415, 421] : [401, 403, 415, 421]).not.toContain(r.status);
          expect(String(r.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
          expect(r.headers['x-content-type-options']).toBe('nosniff');
          expect(r.headers['referrer-policy']).toBe('no-referrer');
        });
      }),
      { numRuns: 5000 / BATCH },
    );
    // Every guard was reached, and so was the API behind them.
    for (const status of [400, 401, 403, 404, 415, 421])
      expect(seen.get(status) ?? 0, `status ${status}`).toBeGreaterThan(20);
    expect([...seen.keys()].some((s) => s >= 200 && s < 300)).toBe(true);
    expect([...seen.values()].reduce((a, b) => a + b, 0)).toBe(5000);
    expect((await fetch(`${gw.ep.base}/healthz`)).status).toBe(200);
  }, 300_000);

  it('answers raw request lines Node cannot parse with a 400 or a closed socket', async () => {
    const line = fc.stringMatching(/^[\x00-\x7f]{0,80}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'G ET', ''),
        line,
        fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/9', ''),
        async (method, target, version) => {
          const answer = await new Promise<string>((resolve) => {
            const s = net.connect(port, '127.0.0.1', () =>
              s.write(
                `${method} ${target} ${version}\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ` +
                  `Bearer ${gw.ep.token}\r\nConnection: close\r\n\r\n`,
              ),
            );
            let got = '';
            s.on('data', (d) => (got += d));
            s.on('close', () => resolve(got));
            s.on('error', () => resolve(got));
            s.setTimeout(5000, () => s.destroy());
          });
          const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1];
          if (status !== undefined) expect(Number(status)).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
    expect((await fetch(`${gw.ep.base}/healthz`)).status).toBe(200);
  }, 120_000);
});
