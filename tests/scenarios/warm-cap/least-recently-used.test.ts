/**
 * The warm cap keeps the processes of the conversations in use: with `maxLive: 2` and four conversations,
 * the one a person keeps talking to keeps its process (its pid) across turns, and each turn that leaves
 * more than two processes idle stops the one idle the longest. A conversation with a turn in flight is
 * never stopped for the cap, however long ago it began. Real gateway, real CLI against the mock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusBody } from '../../../src/http/wire.js';
import { pidAlive, tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 30_000;

beforeAll(async () => {
  mock = await startMockApi();
  gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')), steering: { maxLive: 2 } });
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

async function answered(conv: string, text: string): Promise<void> {
  const t0 = Date.now();
  const { messageId } = await gw.post(conv, text);
  await waitUntil(() => gw.gw.services.store.message(messageId)?.state === 'answered', budget);
  budget = Math.min(90_000, Math.max(budget, (Date.now() - t0) * 10));
}

/** Each conversation's agent process as the status report shows it (null: none). */
async function pids(): Promise<Record<string, number | null>> {
  const status = (await (await gw.api('GET', '/api/status')).json()) as StatusBody;
  return Object.fromEntries(status.sessions.map((s) => [s.conversationId.replace(/^web:/, ''), s.pid]));
}

/** Waits until exactly these conversations have a live process (a stopped one exits within its kill grace). */
async function warm(convs: string[]): Promise<Record<string, number | null>> {
  let seen: Record<string, number | null> = {};
  const live = () =>
    Object.entries(seen)
      .filter(([, pid]) => pid !== null && pidAlive(pid))
      .map(([c]) => c)
      .sort();
  await waitUntil(async () => {
    seen = await pids();
    return live().join() === [...convs].sort().join();
  }, 20_000).catch(() => undefined);
  expect(live()).toEqual([...convs].sort());
  return seen;
}

describe('the warm cap stops the least recently used idle process', () => {
  it('keeps the conversation in use warm across turns; the oldest idle one is stopped', async () => {
    for (const c of ['a', 'b', 'c']) await answered(c, `hello tag:${c}`);
    // Three idle beyond a cap of two: the oldest (a) is stopped, not c whose turn just ended.
    await warm(['b', 'c']);
    await answered('d', 'hello tag:d');
    const before = await warm(['c', 'd']);
    // The person goes on talking in d: same process every turn; the other warm one stays.
    for (const n of [1, 2, 3]) {
      await answered('d', `again ${n} tag:d${n}`);
      expect(await warm(['c', 'd'])).toMatchObject({ d: before.d, c: before.c });
    }
    // Back to a (a new process resuming its session): c is now the one idle the longest.
    await answered('a', 'back tag:a2');
    expect(await warm(['a', 'd'])).toMatchObject({ d: before.d });
  });

  it('never stops a conversation whose turn is in flight, even the oldest', async () => {
    // The busy turn's tool runs until the test lets it end.
    const gate = path.join(tempDir('gate'), 'go');
    const long = await gw.post('busy', `work [[bash:until test -e ${gate}; do sleep 0.2; done]] tag:busy`);
    await waitUntil(async () => (await pids()).busy != null, budget);
    const busyPid = (await pids()).busy!;
    // Two more turns end while busy runs: each ends with more than two processes but only two idle.
    await answered('e', 'hello tag:e');
    await answered('f', 'hello tag:f');
    expect(pidAlive(busyPid)).toBe(true);
    expect(gw.gw.services.store.message(long.messageId)?.state).toBe('running');
    fs.writeFileSync(gate, '');
    await waitUntil(() => gw.gw.services.store.message(long.messageId)?.state === 'answered', budget);
    // Once it ends, three wait idle: the oldest idle one goes, the one whose turn just ended stays.
    const after = await warm(['busy', 'f']);
    expect(after.busy).toBe(busyPid);
  });
});
