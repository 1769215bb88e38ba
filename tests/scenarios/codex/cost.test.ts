/**
 * What a Codex turn cost, through the gateway on the real codex app-server against the mock
 * Responses API: its tokens come from thread/tokenUsage/updated; Codex reports no money, so the cost
 * is stored as unknown (NULL) and said so ("without a reported cost"), never as $0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TurnView } from '../../../src/http/wire.js';
import { mockAgentEnv, waitUntil } from '../../support/claude-rig.js';
import { CODEX_BIN, codexHome } from '../../support/codex-rig.js';
import { startInProcess } from '../../support/gateway-rig.js';
import { type MockResponses, mockCodexConfig, startMockResponses } from '../../support/mock-responses.js';

let mock: MockResponses;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 30_000;

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockResponses();
  const homes = codexHome();
  gw = await startInProcess({
    agent: {
      backend: 'codex',
      permissionMode: 'bypassPermissions',
      codex: { bin: CODEX_BIN, config: mockCodexConfig(mock.url) },
      env: { ...mockAgentEnv('http://127.0.0.1:9', homes.home), CODEX_HOME: homes.codexHome },
    },
  });
  budget = Math.min(120_000, Math.max(40_000, (Date.now() - t0) * 30));
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

describe('a Codex turn’s cost', () => {
  it('stores its tokens and an unknown cost, and says so in /status', async () => {
    const watch = gw.watch('cx');
    await watch.ready;
    const { messageId } = await gw.post('cx', 'hello codex tag:cx1');
    await waitUntil(() => gw.gw.services.store.message(messageId)?.state === 'answered', budget);
    const turn = gw.gw.services.store.turn(gw.gw.services.store.message(messageId)!.turnId!)!;
    // The mock reports 40 input tokens, a quarter of them cached: Rudder counts input without the cache reads.
    expect(turn.cost).toMatchObject({ inputTokens: 30, cacheReadTokens: 10, costUsd: null });
    expect(turn.cost!.outputTokens).toBeGreaterThan(0);
    const page = (await (await gw.api('GET', '/api/conversations/cx/turns')).json()) as { turns: TurnView[] };
    expect(page.turns.at(-1)!.usage).toMatchObject({ inputTokens: 30, costUsd: null });
    const st = await gw.post('cx', '/status');
    const notice = await watch.waitReply(st.messageId, 'notice', budget);
    expect(notice.data.text).toMatch(/Cost today \(here\): \$0\.00 · 1 turn · \d+ tokens · 1 without a reported cost/);
  });
});
