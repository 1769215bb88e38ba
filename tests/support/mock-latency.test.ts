/**
 * The mock Messages API's latency profile: the first token after firstTokenMs, then
 * tokensPerSecond (4 characters a token), streamed and plain, side requests too, errors at once.
 * Times are asserted from below by the profile (a timer never fires early) and from above only
 * loosely, so a busy machine cannot fail them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ClaudeStreamSession } from '../../src/agents/claude/stream-session.js';
import { rigLaunch, trackSessions } from './claude-rig.js';
import {
  type LatencyProfile,
  type MockApi,
  type MockReply,
  startMockApi,
  tokenAtMs,
  tokensOf,
} from './mock-anthropic.js';

const PROFILE: LatencyProfile = { firstTokenMs: 400, tokensPerSecond: 40 };
/** A reply of 40 tokens: under the profile its last token is due at 400 + 39 × 25 = 1375 ms. */
const TEXT = 'abcd'.repeat(40);
/** Slack for the clock: Date.now() has 1 ms steps and a timer may fire up to 1 ms before its round figure. */
const CLOCK_MS = 2;
/** An upper bound no machine should miss: ten times what the profile asks for. */
const loose = (ms: number) => ms * 10;

let mock: MockApi | undefined;
const sessions = trackSessions<ClaudeStreamSession>();
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

const TOOLS = [{ name: 'Bash', description: 'run', input_schema: { type: 'object' } }];

/** Posts a request and reads its SSE answer, noting when each content delta arrived. */
async function stream(url: string, body: Record<string, unknown>) {
  const t0 = Date.now();
  const res = await fetch(`${url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ stream: true, ...body }),
  });
  const deltas: Array<{ at: number; delta: any }> = [];
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let i: number;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const data = /^data: (.*)$/m.exec(buf.slice(0, i))?.[1];
      buf = buf.slice(i + 2);
      const ev = data ? JSON.parse(data) : undefined;
      if (ev?.type === 'content_block_delta') deltas.push({ at: Date.now() - t0, delta: ev.delta });
    }
  }
  return { t0, end: Date.now() - t0, deltas };
}

const userTurn = (text: string, tools = TOOLS) => ({ model: 'm', tools, messages: [{ role: 'user', content: text }] });

describe('mock Messages API latency profile', () => {
  it('streams the first token after firstTokenMs and the rest at tokensPerSecond, 4 characters a token', async () => {
    mock = await startMockApi({ latency: PROFILE, script: () => ({ kind: 'text', text: TEXT }) });
    const r = await stream(mock.url, userTurn('hi'));
    const text = r.deltas.map((d) => d.delta.text).join('');
    expect(text).toBe(TEXT);
    expect(tokensOf(TEXT)).toBe(40);
    // The first delta is one token, sent when it is due; every later delta when its last token is.
    expect(r.deltas[0]!.delta.text).toHaveLength(4);
    expect(r.deltas[0]!.at).toBeGreaterThanOrEqual(PROFILE.firstTokenMs - CLOCK_MS);
    let tokens = 0;
    for (const d of r.deltas) {
      tokens += tokensOf(d.delta.text);
      expect(d.at).toBeGreaterThanOrEqual(tokenAtMs(PROFILE, tokens - 1) - CLOCK_MS);
    }
    expect(r.deltas.length).toBeGreaterThan(5);
    expect(r.end).toBeLessThan(loose(tokenAtMs(PROFILE, 39)));
    const rec = mock.requests[0]!;
    expect(rec.firstTokenAt! - rec.at).toBeGreaterThanOrEqual(PROFILE.firstTokenMs - CLOCK_MS);
    expect(rec.endedAt! - rec.at).toBeGreaterThanOrEqual(tokenAtMs(PROFILE, 39) - CLOCK_MS);
  });

  it('paces a tool call by its name and JSON input, and the pieces make the whole input', async () => {
    const input = { command: 'echo ' + 'x'.repeat(60), description: 'a step' };
    mock = await startMockApi({ latency: PROFILE, script: () => ({ kind: 'tool', name: 'Bash', input }) });
    const r = await stream(mock.url, userTurn('go'));
    expect(JSON.parse(r.deltas.map((d) => d.delta.partial_json).join(''))).toEqual(input);
    const tokens = tokensOf('Bash') + r.deltas.reduce((n, d) => n + tokensOf(d.delta.partial_json), 0);
    expect(tokens).toBeGreaterThanOrEqual(tokensOf(JSON.stringify(input)));
    expect(r.deltas.at(-1)!.at).toBeGreaterThanOrEqual(tokenAtMs(PROFILE, tokens - 1) - CLOCK_MS);
  });

  it('holds a plain reply until its last token is due, and side requests get the profile too', async () => {
    mock = await startMockApi({ latency: PROFILE, script: () => ({ kind: 'text', text: TEXT }) });
    const t0 = Date.now();
    const res = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'title?' }] }),
    });
    const body = (await res.json()) as { content: Array<{ text: string }> };
    expect(body.content[0]!.text).toBe(TEXT);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(tokenAtMs(PROFILE, 39) - CLOCK_MS);
    expect(mock.requests[0]!.side).toBe(true);

    // A streamed side request (no tools) is paced as well.
    mock.setScript(undefined);
    const side = await stream(mock.url, userTurn('title please', []));
    expect(side.deltas[0]!.at).toBeGreaterThanOrEqual(PROFILE.firstTokenMs - CLOCK_MS);
  });

  it(
    'answers errors at once, and without a profile (or after setLatency(undefined)) answers everything at ' + 'once',
    async () => {
      const slow: LatencyProfile = { firstTokenMs: 20_000, tokensPerSecond: 1 };
      const replies: MockReply[] = [
        { kind: 'error', status: 500 },
        { kind: 'text', text: TEXT },
      ];
      mock = await startMockApi({ latency: slow, script: () => replies.shift() });
      const t0 = Date.now();
      const err = await fetch(`${mock.url}/v1/messages`, { method: 'POST', body: JSON.stringify(userTurn('x')) });
      expect(err.status).toBe(500);
      mock.setLatency(undefined);
      const r = await stream(mock.url, userTurn('y'));
      expect(r.deltas.map((d) => d.delta.text).join('')).toBe(TEXT);
      // Both would have waited 20 s under the profile.
      expect(Date.now() - t0).toBeLessThan(slow.firstTokenMs);
    },
  );

  it(
    'the real CLI takes the paced stream: a tool call and its answer, each model call at least ' + 'firstTokenMs',
    async () => {
      const profile: LatencyProfile = { firstTokenMs: 300, tokensPerSecond: 200 };
      mock = await startMockApi({ latency: profile });
      const s = new ClaudeStreamSession(rigLaunch({ mockUrl: mock.url }));
      sessions.push(s);
      const t0 = Date.now();
      const result = await s.startTurn({ inputs: [{ id: 'a', text: 'run it [[bash:echo paced-out]]' }] }).result;
      expect(result.text).toMatch(/^done ok/);
      const main = mock.mainRequests();
      expect(main.length).toBe(2);
      expect(main[1]!.lastUserText).toContain('paced-out');
      for (const r of main) expect(r.firstTokenAt! - r.at).toBeGreaterThanOrEqual(profile.firstTokenMs - CLOCK_MS);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(2 * profile.firstTokenMs);
    },
  );
});
