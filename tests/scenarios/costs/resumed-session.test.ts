/**
 * A turn is charged once, whatever process ran it. The CLI resumed with --resume reports the session's
 * running total (every earlier process's cost too); with `maxLive: 0` every turn runs in a new process
 * and after a restart of Rudder the conversation's session is resumed: each turn must still cost what its
 * own model request cost, as the mock reported its tokens, and the day's spend is the sum of those.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusBody } from '../../../src/http/wire.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

type Gateway = Awaited<ReturnType<typeof startInProcess>>;

let mock: MockApi;
let config: Record<string, unknown>;
const home = tempDir('rhome');
let budget = 30_000;

beforeAll(async () => {
  mock = await startMockApi();
  const agent = agentConfig(mock.url, tempDir('chome'), { cwd: tempDir('work') });
  config = { agent, steering: { maxLive: 0 } };
});
afterAll(async () => {
  await mock?.close();
});

async function answered(gw: Gateway, text: string): Promise<number> {
  const t0 = Date.now();
  const { messageId } = await gw.post('spend', text);
  const store = gw.gw.services.store;
  await waitUntil(() => store.message(messageId)?.state === 'answered', budget);
  budget = Math.min(90_000, Math.max(budget, (Date.now() - t0) * 10));
  const turn = store.turn(store.message(messageId)!.turnId!)!;
  expect(turn.cost).toMatchObject({ inputTokens: Number(/usage:(\d+)/.exec(text)![1]) });
  return turn.cost!.costUsd!;
}

async function spentHere(gw: Gateway): Promise<number> {
  const status = (await (await gw.api('GET', '/api/status')).json()) as StatusBody;
  return status.cost.conversations.find((c) => c.conversationId === 'web:spend')!.usd;
}

describe('costs counted once across processes of one session', () => {
  it('each turn of a maxLive 0 conversation, and the first after a restart, costs its own request', async () => {
    let gw = await startInProcess(config, { home });
    const costs: number[] = [];
    try {
      for (const usage of ['1000/100', '2000/200', '1000/100', '3000/300'])
        costs.push(await answered(gw, `turn [[usage:${usage}]]`));
      expect(mock.mainRequests().filter((r) => r.lastText.includes('turn [[usage'))).toHaveLength(4);
    } finally {
      await gw.stop();
    }
    gw = await startInProcess(config, { home });
    try {
      costs.push(await answered(gw, 'after the restart [[usage:1000/100]]'));
      const [one, ...rest] = costs as [number, ...number[]];
      expect(one).toBeGreaterThan(0);
      // The CLI prices tokens linearly: twice the tokens, twice the cost; never the session's total again.
      expect(rest.map((c) => c / one)).toEqual([2, 1, 3, 1].map((r) => expect.closeTo(r, 9)));
      expect(await spentHere(gw)).toBeCloseTo(8 * one, 12);
    } finally {
      await gw.stop();
    }
  });
});
