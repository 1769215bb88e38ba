/**
 * What a turn cost, end to end on the real CLI against the mock Messages API: the mock reports each
 * request's usage, the CLI prices it and reports a per-process running total; the gateway stores each
 * turn's own share (tokens exactly as the mock sent them, cost as the CLI's total moved), shows it
 * on the turn, in /status and GET /api/status, and a spent daily budget holds the next message until
 * /budget raises it (the mock's log shows it reached the model once).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusBody, TurnView } from '../../../src/http/wire.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi, wrappedCopies } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 20_000;

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockApi();
  gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) });
  budget = Math.min(90_000, Math.max(30_000, (Date.now() - t0) * 20));
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

const turnOf = (messageId: string) => gw.gw.services.store.turn(gw.gw.services.store.message(messageId)!.turnId!)!;
/** The usage the mock reported for the requests that carried this tag (a turn's model calls). */
const reported = (tag: string) => mock.mainRequests().filter((r) => r.lastText.includes(tag) && r.usage);

async function answered(conv: string, text: string): Promise<string> {
  const { messageId } = await gw.post(conv, text);
  await waitUntil(() => gw.gw.services.store.message(messageId)?.state === 'answered', budget);
  return messageId;
}

describe('turn costs on the real CLI', () => {
  it("stores each turn's tokens as the mock reported them and its share of the CLI's running cost", async () => {
    const watch = gw.watch('cost1');
    await watch.ready;
    const a = await answered('cost1', 'first [[usage:1000/100]] tag:ca');
    const b = await answered('cost1', 'second [[usage:2000/200]] tag:cb');
    const c = await answered('cost1', 'cached [[usage:2000/200/300/40]] tag:cc');
    const [ta, tb, tc] = [a, b, c].map((id) => turnOf(id));
    // Tokens: exactly what the mock's one request per turn reported.
    expect(reported('tag:ca').map((r) => r.usage)).toEqual([{ input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 }]);
    expect(ta!.cost).toMatchObject({
      inputTokens: 1000,
      outputTokens: 100,
      cacheReadTokens: 0,
      cacheCreationTokens: 0,
    });
    expect(tb!.cost).toMatchObject({ inputTokens: 2000, outputTokens: 200 });
    expect(tc!.cost).toMatchObject({
      inputTokens: 2000,
      outputTokens: 200,
      cacheReadTokens: 300,
      cacheCreationTokens: 40,
    });
    // Cost: the CLI prices tokens linearly, so twice the tokens cost twice as much; a turn's cost is its own
    // share, not the process's running total (which would make the second turn three times the first).
    const [ca, cb, cc] = [ta, tb, tc].map((t) => t!.cost!.costUsd!) as [number, number, number];
    expect(ca).toBeGreaterThan(0);
    expect(cb).toBeCloseTo(2 * ca, 12);
    expect(cc).toBeGreaterThan(cb);
    // Per model, the same figures under the model the CLI named.
    const models = Object.entries(tb!.cost!.models ?? {});
    expect(models).toHaveLength(1);
    expect(models[0]![1]).toMatchObject({ inputTokens: 2000, outputTokens: 200 });
    expect(models[0]![1].costUsd).toBeCloseTo(cb, 12);
    expect(tb!.cost!.durationMs).toBeGreaterThan(0);
    // The turn event at its end and the history carry it.
    const ended = watch.of(
      'turn',
      (d) => (d.turn as TurnView).id === tb!.id && (d.turn as TurnView).status !== 'running',
    );
    expect((ended[0]!.data.turn as TurnView).usage).toMatchObject({ inputTokens: 2000, costUsd: cb });
    const history = (await (await gw.api('GET', '/api/conversations/cost1/turns')).json()) as { turns: TurnView[] };
    expect(history.turns.find((t) => t.id === tc!.id)!.usage).toMatchObject({ cacheReadTokens: 300, costUsd: cc });

    // /status: today here, in the project, in all.
    const st = await gw.post('cost1', '/status');
    const notice = await watch.waitReply(st.messageId, 'notice', budget);
    const sum = ca + cb + cc;
    const money = (v: number) => `$${v < 0.01 ? v.toFixed(4) : v.toFixed(2)}`;
    expect(notice.data.text).toContain(`Cost today (here): ${money(sum)} · 3 turns · 5.8k tokens`);
    expect(notice.data.text).toContain('Cost today (default): ');
    expect(notice.data.text).toContain('Budget (default): no daily budget');

    // GET /api/status
    const status = (await (await gw.api('GET', '/api/status')).json()) as StatusBody;
    expect(status.cost.today.turns).toBeGreaterThanOrEqual(3);
    const here = status.cost.conversations.find((x) => x.conversationId === 'web:cost1')!;
    expect(here).toMatchObject({ turns: 3, turnsWithoutCost: 0, inputTokens: 5000, outputTokens: 500 });
    expect(here.usd).toBeCloseTo(sum, 12);
    expect(status.cost.projects.find((p) => p.project === 'default')).toMatchObject({
      budgetUsd: null,
      budgetSource: 'none',
      over: false,
    });
  });

  it('a spent budget holds the next message until /budget raises it; it reaches the model once', async () => {
    const watch = gw.watch('cost2');
    await watch.ready;
    // Today's budget: nothing, so the next turn waits whatever was spent.
    const set = await gw.post('cost2', '/budget 0');
    await watch.waitReply(set.messageId, 'notice', budget);
    const { messageId } = await gw.post('cost2', 'held until raised tag:held1');
    const notice = await watch.wait('reply', (d) => String(d.text).startsWith('⏸ Project default has spent'), budget);
    expect((notice.data.messageIds as string[])[0]).toBe(messageId);
    expect(gw.gw.services.store.message(messageId)).toMatchObject({ state: 'deferred', heldFor: 'budget' });
    expect(mock.mainRequests().filter((r) => r.historyText.includes('tag:held1'))).toHaveLength(0);
    const status = (await (await gw.api('GET', '/api/status')).json()) as StatusBody;
    expect(status.cost.projects.find((p) => p.project === 'default')).toMatchObject({
      budgetSource: 'raised',
      over: true,
      heldMessages: 1,
    });

    const raise = await gw.post('cost2', '/budget 50');
    const told = await watch.waitReply(raise.messageId, 'notice', budget);
    expect(told.data.text).toMatch(
      /^Today's budget for project default is now \$50\.00 .* 1 held message\(s\) run now/,
    );
    await waitUntil(() => gw.gw.services.store.message(messageId)?.state === 'answered', budget);
    await watch.waitReply(messageId, 'reply', budget);
    const carrying = mock.mainRequests().filter((r) => r.lastUserText.includes('tag:held1'));
    expect(carrying).toHaveLength(1);
    expect(wrappedCopies(carrying[0]!, 'tag:held1')).toBe(1);
    expect(watch.repliesFor(messageId, 'reply')).toHaveLength(1);
  });
});
