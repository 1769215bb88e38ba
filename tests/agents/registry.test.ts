/**
 * The live-process registry and pool on the REAL CLI: the cap, the idle reaper, stopAll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeOneShotSession } from '../../src/agents/claude/oneshot-session.js';
import { ClaudeStreamSession } from '../../src/agents/claude/stream-session.js';
import { AgentPool } from '../../src/agents/pool.js';
import { SessionRegistry } from '../../src/agents/registry.js';
import { startMockApi, type MockApi } from '../support/mock-anthropic.js';
import { pidAlive, recordingLogger, rigLaunch, waitUntil } from '../support/claude-rig.js';

let mock: MockApi;
beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock.close();
});

function makePool(maxLive: number, idleMinutes = 20) {
  const { logger, records } = recordingLogger();
  const registry = new SessionRegistry({ maxLive, idleMinutes, logger });
  const launch = (conversationId: string, sessionId: string | undefined) => rigLaunch({ mockUrl: mock.url, conversationId, launch: { sessionId } });
  const pool = new AgentPool(registry, { live: (c, s) => new ClaudeStreamSession(launch(c, s)), oneShot: (c, s) => new ClaudeOneShotSession(launch(c, s)) }, logger);
  return { registry, pool, records };
}

describe('session registry (real CLI)', () => {
  it('honours the cap: the third conversation runs one-shot, and its turn still works', async () => {
    const { registry, pool, records } = makePool(2);
    try {
      const a = pool.sessionFor('a', undefined, true);
      const b = pool.sessionFor('b', undefined, true);
      const c = pool.sessionFor('c', undefined, true);
      expect(a.backend).toBe('claude-stream');
      expect(b.backend).toBe('claude-stream');
      expect(c.backend).toBe('claude-oneshot');
      expect(c.capabilities.steer).toBe('none');
      expect(registry.sessions()).toHaveLength(2);
      expect(records.some((r) => r.msg === 'live-process cap reached: this conversation runs one-shot')).toBe(true);
      const results = await Promise.all([a, b, c].map((s, i) => s.startTurn({ inputs: [{ id: `x${i}`, text: `hi tag:x${i}` }] }).result));
      expect(results.map((r) => r.text)).toEqual(['ok tag:x0', 'ok tag:x1', 'ok tag:x2']);
      // The one-shot process is gone once its turn is over; the live ones stay.
      expect(c.pid()).toBeUndefined();
      expect(pidAlive(a.pid()!)).toBe(true);
      // The one-shot conversation resumes its own session on its next turn.
      const again = await pool.sessionFor('c', undefined, true).startTurn({ inputs: [{ id: 'x3', text: 'again tag:x3' }] }).result;
      expect(again.sessionId).toBe(results[2]!.sessionId);
    } finally {
      await pool.stopAll('test over');
    }
  });

  it('turns steering off with a cap of 0 and says so', () => {
    const { registry, pool, records } = makePool(0);
    expect(registry.canStartLive()).toBe(false);
    expect(pool.sessionFor('z', undefined, true).backend).toBe('claude-oneshot');
    expect(records.some((r) => String(r.msg).startsWith('steering off'))).toBe(true);
  });

  it('reaps an idle session, skips one in flight, and survives an exception in its loop', async () => {
    const { registry, pool } = makePool(3, 0.01); // clamped to 1 minute
    try {
      const idle = pool.sessionFor('idle', undefined, true);
      const busy = pool.sessionFor('busy', undefined, true);
      await idle.startTurn({ inputs: [{ id: 'i', text: 'hi' }] }).result;
      const idlePid = idle.pid()!;
      const turn = busy.startTurn({ inputs: [{ id: 'b', text: 'work [[bash:sleep 4]]' }] });
      await new Promise<void>((resolve) => turn.onEvent((e) => e.type === 'tool-use' && resolve()));
      const broken = { conversationId: 'broken', state: () => { throw new Error('boom'); } };
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
    const a = pool.sessionFor('s1', undefined, true);
    const b = pool.sessionFor('s2', undefined, true);
    const c = pool.sessionFor('s3', undefined, true);
    await a.startTurn({ inputs: [{ id: 'q1', text: 'hi' }] }).result;
    const tb = b.startTurn({ inputs: [{ id: 'q2', text: 'long [[bash:echo start; sleep 30]]' }] });
    const tc = c.startTurn({ inputs: [{ id: 'q3', text: 'long [[bash:echo start; sleep 30]]' }] });
    await Promise.all([tb, tc].map((t) => new Promise<void>((resolve) => t.onEvent((e) => e.type === 'tool-use' && resolve()))));
    const pids = [a.pid()!, b.pid()!, c.pid()!];
    expect(pids.every(pidAlive)).toBe(true);
    await pool.stopAll('gateway stopping');
    await waitUntil(() => pids.every((p) => !pidAlive(p)), 10_000);
    const err = await tb.result.catch((e: { code: string; context: { unanswered: string[] } }) => e);
    expect(err).toMatchObject({ code: 'AGENT_STOPPED', context: { unanswered: ['q2'] } });
  });
});
