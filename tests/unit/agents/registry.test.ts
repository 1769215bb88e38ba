/**
 * The session registry and pool on the REAL CLI: the warm cap, the idle reaper, stopAll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeStreamSession } from '../../../src/agents/claude/stream-session.js';
import { AgentPool } from '../../../src/agents/pool.js';
import { SessionRegistry, spareProcess, warmCap } from '../../../src/agents/registry.js';
import { isRudderError, type RudderError } from '../../../src/errors.js';
import { pidAlive, recordingLogger, rigLaunch, untilEvent, waitUntil } from '../../support/claude-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock.close();
});

function makePool(maxLive: number, idleMinutes = 20, nameOf?: (id: string) => string) {
  const { logger, records } = recordingLogger();
  const registry = new SessionRegistry({ maxLive, idleMinutes, logger });
  // One HOME and working directory per conversation, as the gateway gives it: a new process resumes there.
  const homes = new Map<string, ReturnType<typeof rigLaunch>>();
  const launch = (conversationId: string, sessionId: string | undefined) => {
    const base =
      homes.get(conversationId) ??
      homes.set(conversationId, rigLaunch({ mockUrl: mock.url, conversationId })).get(conversationId)!;
    return { ...base, sessionId };
  };
  const pool = new AgentPool(registry, { live: (c, s) => new ClaudeStreamSession(launch(c, s)) }, nameOf);
  return { registry, pool, records };
}

describe('warm cap from the machine', () => {
  it('is one idle process per 2 GB of available memory, 2..8, unless the config says', () => {
    expect(warmCap(undefined, 23.4e9)).toEqual({
      maxLive: 8,
      why: 'from 23.4 GB available memory: one per 2 GB, 2..8',
    });
    expect(warmCap(undefined, 9.1e9).maxLive).toBe(4);
    expect(warmCap(undefined, 1e9).maxLive).toBe(2);
    expect(warmCap(undefined, undefined)).toEqual({ maxLive: 2, why: 'available memory unknown: the minimum of 2..8' });
    expect(warmCap(0, 23e9)).toEqual({ maxLive: 0, why: 'steering.maxLive in the config' });
    expect(warmCap(12, 1e9).maxLive).toBe(12);
  });
});

describe('the spare process from the machine', () => {
  it("is on when the memory has room, by the warm cap's 2 GB a process, for one more than the warm cap", () => {
    expect(spareProcess(undefined, 8, 18e9)).toEqual({
      on: true,
      why: '18.0 GB available: room for 8 warm processes and a spare',
    });
    expect(spareProcess(undefined, 8, 17.9e9)).toEqual({
      on: false,
      why: '17.9 GB available: 18.0 GB needed beside 8 warm processes',
    });
    expect(spareProcess(undefined, 2, 6e9).on).toBe(true);
    expect(spareProcess(undefined, 2, undefined)).toEqual({ on: false, why: 'available memory unknown' });
  });

  it('is what the config says when it says', () => {
    expect(spareProcess(false, 2, 100e9)).toEqual({ on: false, why: 'steering.spareProcess in the config' });
    expect(spareProcess(true, 8, 1e9).on).toBe(true);
  });
});

describe('session registry (real CLI)', () => {
  it(
    'runs every turn beyond the warm cap in a process that steers; then keeps only maxLive idle ' + 'processes',
    async () => {
      const { registry, pool, records } = makePool(1);
      try {
        const sessions = ['a', 'b', 'c'].map((c) => pool.sessionFor(c, undefined));
        for (const s of sessions) expect(s.capabilities.steer).toBe('tool-boundary');
        const turns = sessions.map((s, i) =>
          s.startTurn({ inputs: [{ id: `x${i}`, text: `work [[bash:sleep 2]] tag:x${i}` }] }),
        );
        await Promise.all(turns.map((t) => untilEvent(t, 'tool-use')));
        const pids = sessions.map((s) => s.pid()!);
        const steers = await Promise.all(sessions.map((s, i) => s.steer({ id: `s${i}`, text: `and this tag:s${i}` })));
        expect(steers.map((r) => r.outcome)).toEqual(['steered', 'steered', 'steered']);
        const results = await Promise.all(turns.map((t) => t.result));
        expect(results.map((r) => r.inputIds)).toEqual([
          ['x0', 's0'],
          ['x1', 's1'],
          ['x2', 's2'],
        ]);
        // One process stays warm; the others exit once their turn is over.
        await waitUntil(() => pids.filter(pidAlive).length === 1, 10_000);
        expect(registry.idleWarm()).toHaveLength(1);
        expect(
          records.filter(
            (r) => r.msg === 'turn over beyond the warm cap: its process exits; the next turn resumes the session',
          ),
        ).toHaveLength(2);
        // A conversation whose process exited resumes its own session in a new one.
        const cold = ['a', 'b', 'c'].find((c) => registry.get(c) === undefined)!;
        const i = ['a', 'b', 'c'].indexOf(cold);
        const again = await pool
          .sessionFor(cold, results[i]!.sessionId)
          .startTurn({ inputs: [{ id: 'x3', text: 'again tag:x3' }] }).result;
        expect(again.sessionId).toBe(results[i]!.sessionId);
        expect(mock.mainRequests().at(-1)!.historyText).toContain(`tag:x${i}`);
      } finally {
        await pool.stopAll('test over');
      }
    },
  );

  it('keeps no process warm with maxLive 0; each turn still runs in a stream-json process', async () => {
    const { pool } = makePool(0);
    try {
      const s = pool.sessionFor('zero', undefined);
      const r = await s.startTurn({ inputs: [{ id: 'z1', text: 'hi tag:z1' }] }).result;
      const pid = s.pid();
      expect(pid).toBeDefined();
      await waitUntil(() => !pidAlive(pid!), 10_000);
      const next = pool.sessionFor('zero', r.sessionId);
      expect(next).not.toBe(s);
      expect((await next.startTurn({ inputs: [{ id: 'z2', text: 'again tag:z2' }] }).result).sessionId).toBe(
        r.sessionId,
      );
    } finally {
      await pool.stopAll('test over');
    }
  });

  it('reaps an idle session, skips one in flight, and survives an exception in its loop', async () => {
    const { registry, pool } = makePool(3, 0.01); // clamped to 1 minute
    try {
      const idle = pool.sessionFor('idle', undefined);
      const busy = pool.sessionFor('busy', undefined);
      await idle.startTurn({ inputs: [{ id: 'i', text: 'hi' }] }).result;
      const idlePid = idle.pid()!;
      const turn = busy.startTurn({ inputs: [{ id: 'b', text: 'work [[bash:sleep 4]]' }] });
      await new Promise<void>((resolve) => turn.onEvent((e) => e.type === 'tool-use' && resolve()));
      const broken = {
        conversationId: 'broken',
        state: () => {
          throw new Error('boom');
        },
        onTurn: () => () => undefined,
        stop: async () => undefined,
      };
      registry.add(broken as never);
      // Idle for 61 s on the reaper's clock; the clamp makes the threshold 1 minute, not 0.6 s.
      expect(await registry.reapOnce(Date.now() + 30_000)).toEqual([]);
      const stopped = await registry.reapOnce(Date.now() + 61_000);
      expect(stopped).toEqual(['idle']);
      expect(pidAlive(idlePid)).toBe(false);
      expect(busy.pid()).toBeDefined();
      expect((await turn.result).text).toContain('done');
      expect(registry.get('broken')).toBeDefined();
    } finally {
      registry.remove({ conversationId: 'broken' } as never);
      await pool.stopAll('test over');
    }
  });

  it('leaves no child alive after stopAll, even with a turn in flight', async () => {
    const { pool } = makePool(2);
    const a = pool.sessionFor('s1', undefined);
    const b = pool.sessionFor('s2', undefined);
    const c = pool.sessionFor('s3', undefined);
    await a.startTurn({ inputs: [{ id: 'q1', text: 'hi' }] }).result;
    const tb = b.startTurn({ inputs: [{ id: 'q2', text: 'long [[bash:echo start; sleep 30]]' }] });
    const tc = c.startTurn({ inputs: [{ id: 'q3', text: 'long [[bash:echo start; sleep 30]]' }] });
    await Promise.all(
      [tb, tc].map((t) => new Promise<void>((resolve) => t.onEvent((e) => e.type === 'tool-use' && resolve()))),
    );
    const pids = [a.pid()!, b.pid()!, c.pid()!];
    expect(pids.every(pidAlive)).toBe(true);
    await pool.stopAll('gateway stopping');
    await waitUntil(() => pids.every((p) => !pidAlive(p)), 10_000);
    const err = await tb.result.catch((e: { code: string; context: { unanswered: string[] } }) => e);
    expect(err).toMatchObject({ code: 'AGENT_STOPPED', context: { unanswered: ['q2'] } });
  });
});

describe('one session, one conversation (real CLI)', () => {
  it('refuses a process on a session another conversation has live, naming it; frees it once that stops', async () => {
    const { pool } = makePool(2, 20, (id) => (id === 'web:a' ? '“fix the login” (web:a)' : id));
    const a = pool.sessionFor('web:a', undefined);
    await a.startTurn({ inputs: [{ id: 'a1', text: 'hello tag:held' }] }).result;
    const sid = a.sessionId()!;
    let err: unknown;
    try {
      pool.sessionFor('web:b', sid);
    } catch (e) {
      err = e;
    }
    expect(isRudderError(err, 'SESSION_HELD')).toBe(true);
    expect((err as Error).message).toContain(`Session ${sid} is open in conversation “fix the login” (web:a)`);
    expect((err as RudderError).context).toMatchObject({ conversationId: 'web:b', holder: 'web:a', sessionId: sid });
    // The holder itself goes on; a session of its own is no problem for another conversation.
    expect(pool.sessionFor('web:a', sid)).toBe(a);
    const other = pool.sessionFor('web:b', undefined);
    expect(other).not.toBe(a);
    await pool.release('web:a', 'test: the holder stops');
    const b = pool.sessionFor('web:c', sid);
    expect(b.conversationId).toBe('web:c');
    await pool.stopAll('test over');
  });
});
