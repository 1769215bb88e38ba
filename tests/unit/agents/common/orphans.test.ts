import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { killMarked, MARK_VAR, markedPids, newMark } from '../../../../src/agents/common/orphans.js';

const children: ChildProcess[] = [];

function sleeper(env: NodeJS.ProcessEnv): ChildProcess {
  const c = spawn('sleep', ['60'], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
  children.push(c);
  return c;
}

const exited = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

describe('marked processes', () => {
  it('finds a process by its mark, also behind an environment larger than one read', () => {
    const mark = newMark('orphans-test');
    const big = sleeper({ PAD_A: 'x'.repeat(100_000), PAD_B: 'y'.repeat(100_000), [MARK_VAR]: mark });
    const small = sleeper({ [MARK_VAR]: mark });
    expect(markedPids((m) => m === mark).sort()).toEqual([big.pid, small.pid].sort());
  });

  it('reads the mark only as a variable of its own, not inside another name', () => {
    const mark = newMark('orphans-test');
    sleeper({ [`X${MARK_VAR}`]: mark });
    expect(markedPids((m) => m === mark)).toEqual([]);
  });

  it('kills every process carrying the mark and no other', async () => {
    const mark = newMark('orphans-test');
    const marked = sleeper({ [MARK_VAR]: mark });
    const other = sleeper({ [MARK_VAR]: newMark('orphans-test') });
    expect(killMarked((m) => m === mark)).toBe(1);
    await exited(marked);
    expect(marked.signalCode).toBe('SIGKILL');
    expect(other.exitCode).toBeNull();
    expect(other.signalCode).toBeNull();
  });
});
