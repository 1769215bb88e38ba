/**
 * A process that fails a turn because its session cannot be resumed (the CLI then exits, soon or
 * late) with a steer still waiting in it: nothing more starts in that process, the steer runs
 * after the failed message, and a steer the agent never took in does not count as an attempt.
 * Fake CLI (queue mode: one turn at a time, as the real CLI's queue), through the HTTP API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE, tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock?.close();
});

/** A gateway on the fake CLI whose failing process exits exitDelayMs after its failed result. */
const start = (exitDelayMs: number) =>
  startInProcess({
    agent: {
      ...agentConfig(mock.url, tempDir('chome')),
      claudeBin: FAKE_CLAUDE,
      env: { FAKE_CLAUDE_MODE: 'queue', FAKE_EXIT_DELAY_MS: String(exitDelayMs) },
    },
  });

type Fake = Awaited<ReturnType<typeof start>>;
type Store = Fake['gw']['services']['store'];

/** A first message whose turn fails as a session that cannot be resumed, and a steer written into it meanwhile. */
async function steerIntoFailingTurn(fake: Fake, conv: string, steer: string) {
  const w = fake.watch(conv);
  await w.ready;
  const store = fake.gw.services.store;
  const a = await fake.post(conv, `first [[delay:1500]] [[fail-exit]] tag:${conv}-a`);
  await waitUntil(() => store.message(a.messageId)!.state === 'running');
  const s = await fake.post(conv, `${steer} tag:${conv}-s`);
  expect(s.disposition).toBe('steered');
  return { w, store, a, s };
}
/** The input ids of each turn that holds one of ids, oldest first. */
const turnsOf = (store: Store, ...ids: string[]) =>
  (store.db.prepare('SELECT input_ids FROM turns ORDER BY started_at').all() as Array<{ input_ids: string }>)
    .map((t) => JSON.parse(t.input_ids) as string[])
    .filter((inputs) => ids.some((id) => inputs.includes(id)));

describe.each([
  ['exits at once', 0],
  ['lingers', 30_000],
])('steers left queued in a process whose session is gone (the process %s)', (_how, exitDelayMs) => {
  it('run after the failed turn, in order, in a new process, instead of leaving the conversation stuck', async () => {
    const fake = await start(exitDelayMs);
    try {
      const { w, store, a, s } = await steerIntoFailingTurn(fake, 'gone', 'meanwhile');
      // Well within a lingering process's 30 s: the steer does not wait for that process to go.
      const rs = await w.waitReply(s.messageId, 'reply', 20_000);
      expect(rs.data.messageIds).toEqual([s.messageId]);
      // The failed message ran again first (and failed again: the fake fails it every time).
      await waitUntil(() => store.message(a.messageId)!.state === 'failed');
      expect(w.repliesFor(a.messageId, 'notice').length).toBeGreaterThan(0);
      expect(turnsOf(store, a.messageId, s.messageId)).toEqual([[a.messageId], [a.messageId], [s.messageId]]);
      // The processes let go of are ended by Rudder: only the one that answered is left.
      await waitUntil(() => store.processes().length === 1, 10_000);
    } finally {
      await fake.stop();
    }
  });
});

describe('a steer the agent never took in', () => {
  it('is no attempt: when it then fails on its own it still runs twice before it is reported failed', async () => {
    const fake = await start(0);
    try {
      const { w, store, s } = await steerIntoFailingTurn(fake, 'untaken', 'meanwhile [[fail-exit]]');
      await waitUntil(() => store.message(s.messageId)!.state === 'failed', 20_000);
      expect(turnsOf(store, s.messageId)).toEqual([[s.messageId], [s.messageId]]);
      expect(store.message(s.messageId)!.attempts).toBe(2);
      expect(w.repliesFor(s.messageId, 'notice').length).toBeGreaterThan(0);
    } finally {
      await fake.stop();
    }
  });
});
