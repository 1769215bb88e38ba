/**
 * A Codex rate limit through a real gateway takes the same path as Claude's: the message is held
 * until the limit resets (the time from codex's rate-limit report), the local fallback model
 * answers meanwhile when there is one, and the message then runs again once, reaching the model
 * once. The real codex binary against the mock Responses API; the fallback is a fake
 * OpenAI-compatible endpoint.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { codexAgent, copiesInLast, roundTripBudget, sentTimes } from '../../support/codex-gateway.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../support/fake-openai.js';
import { startInProcess } from '../../support/gateway-rig.js';
import { fail, type MockResponses, startMockResponses } from '../../support/mock-responses.js';

let mock: MockResponses;
let openai: FakeOpenAi;
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  mock = await startMockResponses();
  openai = await startFakeOpenAi('the local model says hi');
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.stop()));
  mock.setScript(undefined);
});
afterAll(async () => {
  await mock.close();
  await openai.close();
});

async function gateway(config: Record<string, unknown> = {}) {
  const gw = await startInProcess({ agent: codexAgent(mock.url), ...config });
  running.push(gw);
  return { gw, budget: await roundTripBudget(gw, 'budget') };
}

describe('codex rate limits through the gateway (real codex)', () => {
  it('a usage limit: the local model answers meanwhile, then the message runs on Codex after the reset', async () => {
    const { gw, budget } = await gateway({ fallback: { baseURL: openai.baseURL, model: 'local-model' } });
    // The limit resets a few seconds after the first 429, however long the start took; codex reports when.
    let resetsAt = 0;
    mock.setScript((req) => {
      if (!req.historyTexts.some((t) => t.includes('tag:rl1'))) return undefined;
      resetsAt ||= Math.floor(Date.now() / 1000) + 4;
      return Date.now() < resetsAt * 1000 ? fail(429, 'usage', resetsAt) : undefined;
    });
    const w = gw.watch('rl');
    await w.ready;
    const m = await gw.post('rl', 'please tag:rl1');
    const fb = await w.wait(
      'reply',
      (d) => (d.messageIds as string[]).includes(m.messageId) && d.fromFallback === true,
      budget,
    );
    expect(fb.data.text).toContain('the local model says hi');
    expect(fb.data.text).toMatch(
      /^\[local model, Codex is rate limited until \d\d:\d\d UTC; this message runs on Codex/,
    );
    expect(String(openai.requests.at(-1)!.body.messages.at(-1).content)).toContain('tag:rl1');
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('deferred');
    // The reset time is codex's own (from the limit's headers), not an estimate.
    const held = gw.gw.services.store.message(m.messageId)!;
    expect(held.reason).toBe('rate limited');
    const real = await w.wait(
      'reply',
      (d) => (d.messageIds as string[]).includes(m.messageId) && d.fromFallback === false,
      budget + 10_000,
    );
    expect(real.data.text).toMatch(/ok tag:rl1$/);
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('answered');
    // Each input reached the model once: the re-run sent only the note, the thread held the message.
    expect(sentTimes(mock.requests, 'tag:rl1')).toBe(1);
    expect(copiesInLast(mock.requests, 'tag:rl1')).toBe(1);
    const sentinel = await gw.post('rl', 'sentinel tag:rl9');
    await w.waitReply(sentinel.messageId, 'reply', budget);
    expect(w.repliesFor(m.messageId, 'reply').filter((e) => e.data.fromFallback === false)).toHaveLength(1);
  });

  it('a plain 429 without a fallback: says the (estimated) reset, keeps the message, /retry runs it once', async () => {
    const { gw, budget } = await gateway();
    let limited = true;
    mock.setScript((req) =>
      limited && req.historyTexts.some((t) => t.includes('tag:rl2')) ? fail(429, 'rate') : undefined,
    );
    const w = gw.watch('rl2');
    await w.ready;
    const m = await gw.post('rl2', 'please tag:rl2');
    const n = await w.waitReply(m.messageId, 'notice', budget);
    expect(n.data.text).toMatch(
      /^⏳ Codex is rate limited until \d\d:\d\d UTC \(estimated\)\. Your message is kept and runs on Codex then/,
    );
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('deferred');
    // A message sent meanwhile waits with it.
    const b = await gw.post('rl2', 'meanwhile tag:rl2b');
    expect(b.disposition).toBe('queued');
    limited = false;
    const retry = await gw.post('rl2', '/retry');
    expect((await w.waitReply(retry.messageId, undefined, budget)).data.text).toMatch(/on Codex again/);
    const ra = await w.waitReply(m.messageId, 'reply', budget);
    expect(ra.data.text).toMatch(/ok tag:rl2$/);
    await w.waitReply(b.messageId, 'reply', budget);
    for (const tag of ['please tag:rl2', 'meanwhile tag:rl2b']) {
      expect(sentTimes(mock.requests, tag)).toBe(1);
      expect(copiesInLast(mock.requests, tag)).toBe(1);
    }
    expect(w.repliesFor(m.messageId, 'reply')).toHaveLength(1);
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('answered');
    expect(gw.gw.services.store.message(b.messageId)!.state).toBe('answered');
  });
});
