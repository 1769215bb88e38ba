/**
 * Found by the chaos suite: /stop and /clear end everything sent before them. A message steered
 * into a running turn and not yet taken in by the CLI (it waits for the next tool boundary), or
 * held by a rate limit, must end as stopped, never run after the command. Real CLI and mock
 * Messages API, through the HTTP API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE, tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;

beforeAll(async () => {
  mock = await startMockApi();
  gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) });
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

describe.each(['/stop', '/clear'])('%s with a steer waiting for the tool boundary', (command) => {
  it('stops the steered messages; they never reach the agent', async () => {
    const conv = `steered-${command.slice(1)}`;
    const w = gw.watch(conv);
    await w.ready;
    const a = await gw.post(conv, `long [[bash:echo start; sleep 30]] tag:${conv}-a`);
    await w.wait('status', (d) => d.state === 'tool');
    const b = await gw.post(conv, `meanwhile tag:${conv}-b`);
    const c = await gw.post(conv, `and this tag:${conv}-c`);
    expect([b.disposition, c.disposition]).toEqual(['steered', 'steered']);
    const stop = await gw.post(conv, command);
    await w.waitReply(stop.messageId);
    const store = gw.gw.services.store;
    await waitUntil(() => store.message(a.messageId)!.state === 'stopped');
    // The lane runs in order: anything re-queued would have run before this message's turn.
    const sentinel = await gw.post(conv, `after tag:${conv}-z`);
    await w.waitReply(sentinel.messageId, 'reply');
    expect([store.message(b.messageId)!.state, store.message(c.messageId)!.state]).toEqual(['stopped', 'stopped']);
    expect(
      mock.mainRequests().filter((q) => /tag:steered-\w+-[bc]/.test(q.lastUserText) && q.lastUserText.includes(conv)),
    ).toHaveLength(0);
    expect([...w.repliesFor(b.messageId, 'reply'), ...w.repliesFor(c.messageId, 'reply')]).toHaveLength(0);
  });
});

describe('/stop with a message held by a rate limit', () => {
  it('stops the held message; it does not run when the hold is released', async () => {
    mock.setScript((req) =>
      !req.side && req.lastText.includes('tag:held-a') ? { kind: 'error', status: 429, style: 'apikey' } : undefined,
    );
    try {
      const w = gw.watch('held');
      await w.ready;
      const a = await gw.post('held', 'please tag:held-a');
      const store = gw.gw.services.store;
      await waitUntil(() => store.message(a.messageId)!.state === 'deferred');
      const stop = await gw.post('held', '/stop');
      await w.waitReply(stop.messageId);
      mock.setScript(undefined);
      await gw.post('held', '/retry');
      // The lane runs in order: a released hold would have run before this message's turn.
      const sentinel = await gw.post('held', 'after tag:held-z');
      await w.waitReply(sentinel.messageId, 'reply');
      expect(store.message(a.messageId)!.state).toBe('stopped');
      expect(w.repliesFor(a.messageId, 'reply')).toHaveLength(0);
    } finally {
      mock.setScript(undefined);
    }
  });
});

describe('/stop while a rate limit lands', () => {
  it('a message sent before /stop whose turn then fails with a 429 ends stopped and never runs again', async () => {
    // The fake CLI answers [[late-429]] with a rate limit 1 s later and ignores the interrupt meanwhile.
    const fake = await startInProcess({
      agent: {
        ...agentConfig(mock.url, tempDir('chome')),
        claudeBin: FAKE_CLAUDE,
        interruptGraceSeconds: 3,
        env: { FAKE_CLAUDE_MODE: 'echo', FAKE_DELAY_MS: '1000' },
      },
    });
    try {
      const w = fake.watch('late');
      await w.ready;
      const store = fake.gw.services.store;
      const a = await fake.post('late', 'please [[late-429]] tag:late-a');
      await waitUntil(() => store.message(a.messageId)!.state === 'running');
      const stop = await fake.post('late', '/stop');
      await w.waitReply(stop.messageId);
      await fake.post('late', '/retry');
      // The lane runs in order: a held message released by /retry would run before this one.
      const sentinel = await fake.post('late', 'after tag:late-z');
      await w.waitReply(sentinel.messageId, 'reply');
      expect(store.message(a.messageId)!.state).toBe('stopped');
      expect(w.of('ack', (d) => d.messageId === a.messageId && d.kind === 'stopped').length).toBeGreaterThan(0);
      const turns = fake.gw.services.store.db.prepare('SELECT input_ids FROM turns').all() as Array<{
        input_ids: string;
      }>;
      expect(turns.filter((t) => t.input_ids.includes(a.messageId))).toHaveLength(1);
    } finally {
      await fake.stop();
    }
  });
});

describe('/stop while the agent drains its queue', () => {
  it(
    'a steer the agent starts as a new turn just before it reads the interrupt ends stopped: no reply, no ' +
      'turn of its own',
    async () => {
      // The fake CLI runs one turn at a time and reads the interrupt 3 s late: the first turn ends in
      // that gap and the waiting steer starts (and ends) as a turn of its own, as the real CLI can do.
      const fake = await startInProcess({
        agent: {
          ...agentConfig(mock.url, tempDir('chome')),
          claudeBin: FAKE_CLAUDE,
          env: { FAKE_CLAUDE_MODE: 'queue', FAKE_INTERRUPT_LAG_MS: '3000' },
        },
      });
      try {
        const w = fake.watch('drain');
        await w.ready;
        const store = fake.gw.services.store;
        const a = await fake.post('drain', 'first [[delay:2000]] tag:drain-a');
        await waitUntil(() => store.message(a.messageId)!.state === 'running');
        const s = await fake.post('drain', 'meanwhile tag:drain-s');
        expect(s.disposition).toBe('steered');
        const stop = await fake.post('drain', '/stop');
        await w.waitReply(stop.messageId);
        const sentinel = await fake.post('drain', 'after tag:drain-z');
        await w.waitReply(sentinel.messageId, 'reply');
        expect(store.message(s.messageId)!.state).toBe('stopped');
        expect(w.repliesFor(s.messageId, 'reply')).toHaveLength(0);
        expect(w.of('ack', (d) => d.messageId === s.messageId && d.kind === 'stopped').length).toBeGreaterThan(0);
        // It names no turn that started after the /stop.
        const turnId = store.message(s.messageId)!.turnId!;
        const started = (
          store.db.prepare('SELECT started_at FROM turns WHERE id = ?').get(turnId) as { started_at: number }
        ).started_at;
        expect(started).toBeLessThan(store.message(stop.messageId)!.receivedAt);
      } finally {
        await fake.stop();
      }
    },
  );
});
