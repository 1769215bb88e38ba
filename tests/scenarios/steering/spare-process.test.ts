/**
 * steering.spareProcess: a claude process started ahead for the next new conversation, through the
 * gateway on the real CLI and the mock. The next new conversation runs on it (same pid), a resumed
 * one never does, it is recorded like every agent process, and it stops with the gateway. Unset, it
 * is on when the machine's memory has room for it beside the warm cap.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SPARE_DELAY_MS } from '../../../src/agents/claude/spare.js';
import { memAvailableBytes } from '../../../src/ops/proc.js';
import { pidAlive, tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>> | undefined;
beforeAll(async () => {
  mock = await startMockApi();
});
afterEach(async () => {
  await gw?.stop();
  gw = undefined;
});
afterAll(async () => {
  await mock.close();
});

const spares = () => gw!.gw.services.store.processes().filter((p) => p.conversationId === 'spare' && pidAlive(p.pid));
const pidOf = (conv: string) => gw!.gw.services.registry.get(`web:${conv}`)?.pid();
async function ask(conv: string, tag: string) {
  const w = gw!.watch(conv);
  await w.ready;
  const { messageId } = await gw!.post(conv, `hello tag:${tag}`);
  const reply = await w.waitReply(messageId, 'reply', 30_000);
  w.close();
  return String(reply.data.text);
}

describe('steering.spareProcess', () => {
  it(
    'the next new conversation runs on the spare; a resumed one does not; the spare stops with the ' + 'gateway',
    async () => {
      gw = await startInProcess({
        agent: agentConfig(mock.url, tempDir('chome')),
        steering: { spareProcess: true, maxLive: 4 },
      });
      expect(await ask('first', 's1')).toBe('ok tag:s1');
      // The first new conversation primes it, a few seconds later (so it does not slow that turn).
      await waitUntil(() => spares().length === 1, SPARE_DELAY_MS + 15_000);
      const spare = spares()[0]!.pid;

      expect(await ask('second', 's2')).toBe('ok tag:s2');
      expect(pidOf('second')).toBe(spare);
      expect(gw.gw.services.store.processes().find((p) => p.pid === spare)?.conversationId).toBe('web:second');
      await waitUntil(() => spares().length === 1 && spares()[0]!.pid !== spare, SPARE_DELAY_MS + 15_000);
      const next = spares()[0]!.pid;

      // A conversation that resumes its session starts its own process: the spare is for new sessions.
      await gw.gw.services.pool.release('web:first', 'test: make it resume');
      expect(await ask('first', 's3')).toBe('ok tag:s3');
      expect(pidOf('first')).not.toBe(next);
      expect(spares().map((p) => p.pid)).toEqual([next]);

      await gw.stop();
      gw = undefined;
      await waitUntil(() => !pidAlive(next), 10_000);
    },
  );

  it('unset, it follows the memory: no process is started ahead without room beside the warm cap', async () => {
    // maxLive 50 would need 102 GB beside it: no machine here has that.
    gw = await startInProcess({
      agent: agentConfig(mock.url, tempDir('chome')),
      steering: { spareProcess: undefined, maxLive: 50 },
    });
    const status = gw.gw.services.status.report().steering;
    expect([status.spareProcess, status.spareProcessWhy]).toEqual([false, expect.stringMatching(/needed beside 50/)]);
    expect(await ask('only', 'o1')).toBe('ok tag:o1');
    await new Promise((r) => setTimeout(r, SPARE_DELAY_MS + 1500));
    expect(gw.gw.services.store.processes().map((p) => p.conversationId)).toEqual(['web:only']);
  });

  it('unset, it follows the memory: with room beside the warm cap, a process is started ahead', async () => {
    const mem = memAvailableBytes();
    // One warm process and a spare need 4 GB: the machines this runs on have that to spare.
    if (mem === undefined || mem < 4e9) throw new Error(`this test needs 4 GB of available memory (${mem})`);
    gw = await startInProcess({
      agent: agentConfig(mock.url, tempDir('chome')),
      steering: { spareProcess: undefined, maxLive: 1 },
    });
    expect(gw.gw.services.status.report().steering.spareProcess).toBe(true);
    expect(await ask('first', 'd1')).toBe('ok tag:d1');
    await waitUntil(() => spares().length === 1, SPARE_DELAY_MS + 15_000);
  });
});
