/**
 * The pool of shared agent processes (agents/common/process-pool.ts) that Codex's app-servers and the
 * ACP agents use, on real processes (`cat`, which exits when its stdin closes, and `sleep`, which does not).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AgentProcess } from '../../../../src/agents/claude/process.js';
import { ProcessPool, processKey } from '../../../../src/agents/common/process-pool.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { pidAlive, tempDir, waitUntil } from '../../../support/claude-rig.js';

const started: AgentProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.kill('test over', 500)));
});

function spawn(bin: string, args: string[] = []): AgentProcess {
  const p = AgentProcess.spawn({
    bin,
    args,
    cwd: tempDir('pool'),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    logger: silentLogger(),
    label: 'pool-test',
  });
  started.push(p);
  return p;
}

describe('ProcessPool', () => {
  it('one process per key, shared by its leases; the last release ends it, a later lease starts another', async () => {
    const pool = new ProcessPool<AgentProcess>({ killGraceMs: 500 });
    let starts = 0;
    const start = () => (starts++, spawn('/bin/cat'));
    const a = pool.lease('k', 'a', start);
    const b = pool.lease('k', 'b', start);
    const other = pool.lease('other', 'c', start);
    expect(starts).toBe(2);
    expect(b.proc).toBe(a.proc);
    expect([a.shared(), other.shared()]).toEqual([true, false]);
    expect(pool.list().map((e) => [e.key, e.conversations])).toEqual([
      ['k', 2],
      ['other', 1],
    ]);
    await a.release('a done');
    expect(a.proc.alive()).toBe(true);
    expect(b.shared()).toBe(false);
    await b.release('b done');
    await b.release('twice');
    expect(a.proc.alive()).toBe(false);
    expect((await a.proc.exited).reason).toMatch(/^no conversation uses it any more \(last: b done\)/);
    const c = pool.lease('k', 'c', start);
    expect(c.proc).not.toBe(a.proc);
    expect(starts).toBe(3);
    await pool.stopAll('test over');
    expect(pool.list()).toEqual([]);
  });

  it('replaces a process that died, tells each lease holding it, and refuses leases once stopped', async () => {
    const pool = new ProcessPool<AgentProcess>({ killGraceMs: 500 });
    const told: string[] = [];
    const a = pool.lease(
      'k',
      'a',
      () => spawn('/bin/sleep', ['30']),
      () => told.push('a'),
    );
    const b = pool.lease(
      'k',
      'b',
      () => spawn('/bin/sleep', ['30']),
      () => told.push('b'),
    );
    await b.release('b left');
    process.kill(a.proc.pid, 'SIGKILL');
    await a.proc.exited;
    await waitUntil(() => told.length > 0, 5_000);
    expect(told).toEqual(['a']);
    const again = pool.lease('k', 'a2', () => spawn('/bin/sleep', ['30']));
    expect(again.proc).not.toBe(a.proc);
    await pool.stopAll('gateway stopping');
    expect(pidAlive(again.proc.pid)).toBe(false);
    expect((await again.proc.exited).reason).toBe('gateway stopping');
    expect(() => pool.lease('k', 'late', () => spawn('/bin/cat'))).toThrow(/shutting down/);
  });

  it('keys a process by its parts and its environment, whatever the order of the variables', () => {
    expect(processKey(['bin', ['-a']], { A: '1', B: '2' })).toBe(processKey(['bin', ['-a']], { B: '2', A: '1' }));
    expect(processKey(['bin', ['-a']], { A: '1' })).not.toBe(processKey(['bin', ['-b']], { A: '1' }));
    expect(processKey(['bin'], { A: '1' })).not.toBe(processKey(['bin'], { A: '2' }));
  });
});
