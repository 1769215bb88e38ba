/**
 * One gateway per data dir: the lock (ops/lock.ts) is held, released, taken over from a dead or
 * reused pid, and has one winner among racing starters.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRudderError } from '../../../src/errors.js';
import { acquireLock, LOCK_FILE } from '../../../src/ops/lock.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { ROOT } from '../../support/gateway-rig.js';

const LOCK_JS = path.join(ROOT, 'dist/ops/lock.js');

function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$']);
  return Number(String(r.stdout).trim());
}

/** A process that takes the lock (or reports who holds it) at the given time, and holds it until killed. */
function holder(dir: string, at = 0) {
  const code =
    `import(${JSON.stringify(LOCK_JS)}).then((m) => { while (Date.now() < ${at}); try { ` +
    `m.acquireLock(${JSON.stringify(dir)}); console.log('got'); } catch (e) { console.log('busy ' + ` +
    `e.context.pid); } setInterval(() => {}, 1000); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  return { child, out: () => out.trim() };
}

function expectRunning(fn: () => unknown, pid: number) {
  try {
    fn();
  } catch (err) {
    expect(isRudderError(err, 'ALREADY_RUNNING')).toBe(true);
    expect((err as Error).message).toBe(
      `Rudder is already running on this data dir. It runs as pid ${pid}: stop it first, or set RUDDER_HOME to ` +
        'another data dir.',
    );
    return;
  }
  throw new Error('the lock was taken twice');
}

describe('the data dir lock', () => {
  it('is held with the pid, refused while held, and gone once released', () => {
    const dir = tempDir('lock');
    const lock = acquireLock(dir);
    const file = path.join(dir, LOCK_FILE);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(process.pid);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expectRunning(() => acquireLock(dir), process.pid);
    lock.release();
    expect(fs.existsSync(file)).toBe(false);
    acquireLock(dir).release();
  });

  it('is taken over from a dead process, a reused pid, or a garbled file', () => {
    const dir = tempDir('lock');
    const file = path.join(dir, LOCK_FILE);
    for (const content of [
      JSON.stringify({ pid: deadPid() }),
      JSON.stringify({ pid: 1, startTime: 1 }),
      'not json',
      JSON.stringify({ pid: process.pid }),
    ]) {
      fs.writeFileSync(file, content);
      const lock = acquireLock(dir);
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).pid).toBe(process.pid);
      lock.release();
    }
  });

  it('holds against another live process, and is free once that one is killed', async () => {
    const dir = tempDir('lock');
    const h = holder(dir);
    await waitUntil(() => h.out() === 'got');
    expectRunning(() => acquireLock(dir), h.child.pid!);
    h.child.kill('SIGKILL');
    await new Promise((r) => h.child.once('exit', r));
    acquireLock(dir).release();
  });

  it('has one winner among starters racing for a stale lock', async () => {
    const dir = tempDir('lock');
    fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid() }));
    // All at the same moment, once every one of them has loaded.
    const at = Date.now() + 3000;
    const hs = Array.from({ length: 6 }, () => holder(dir, at));
    try {
      await waitUntil(() => hs.every((h) => h.out() !== ''), 20_000);
      const winners = hs.filter((h) => h.out() === 'got');
      expect(winners).toHaveLength(1);
      for (const h of hs) if (h !== winners[0]) expect(h.out()).toBe(`busy ${winners[0]!.child.pid}`);
    } finally {
      for (const h of hs) h.child.kill('SIGKILL');
    }
  });
});
