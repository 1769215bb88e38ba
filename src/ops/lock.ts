/**
 * One gateway per data dir: `rudder.lock` is created with O_EXCL and holds the owner's pid (and
 * its start time, so a reused pid is not mistaken for it) for the life of the process. A second
 * start that finds a live owner touches nothing; a lock whose owner is gone is taken over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { RudderError } from '../errors.js';
import { alive, startTimeOf as processStart } from './proc.js';

export const LOCK_FILE = 'rudder.lock';

interface LockContent {
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat), where known. */
  startTime?: number;
}

export interface DataDirLock {
  readonly file: string;
  readonly pid: number;
  release(): void;
}

/** Locks held by this process: the same pid in the file is then a live holder, not a leftover. */
const held = new Set<string>();

function startTimeOf(pid: number): number | undefined {
  const v = Number(processStart(pid));
  return Number.isFinite(v) ? v : undefined;
}

function read(file: string): { text: string; content: LockContent | undefined } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const v = JSON.parse(text) as LockContent;
    return { text, content: Number.isInteger(v.pid) && v.pid > 0 ? v : undefined };
  } catch {
    return { text, content: undefined };
  }
}

/** Whether the process named in the lock is still the one that wrote it. */
function holderAlive(file: string, c: LockContent): boolean {
  if (c.pid === process.pid) return held.has(file);
  if (!alive(c.pid)) return false;
  const now = startTimeOf(c.pid);
  return c.startTime === undefined || now === undefined || now === c.startTime;
}

function alreadyRunning(file: string, pid: number): RudderError {
  return new RudderError(
    'ALREADY_RUNNING',
    // The code's own text says it is running; the detail adds only who and what to do (said once).
    `It runs as pid ${pid}: stop it first, or set RUDDER_HOME to another data dir.`,
    { pid, lockFile: file },
  );
}

/** Takes the data dir's lock, or throws ALREADY_RUNNING naming the pid that holds it. */
export function acquireLock(dataDir: string): DataDirLock {
  const file = path.join(dataDir, LOCK_FILE);
  const mine = JSON.stringify({ pid: process.pid, startTime: startTimeOf(process.pid) } satisfies LockContent);
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx', 0o600);
      try {
        fs.writeSync(fd, `${mine}\n`);
      } finally {
        fs.closeSync(fd);
      }
      return holding(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const seen = read(file);
    if (!seen) continue; // released meanwhile: try again
    // A file still being written by its creator reads empty for a moment.
    if (!seen.content && seen.text === '' && Date.now() - statMtime(file) < 2000) {
      sleepSync(50);
      continue;
    }
    if (seen.content && holderAlive(file, seen.content)) throw alreadyRunning(file, seen.content.pid);
    takeOver(file, seen.text);
  }
  const last = read(file)?.content;
  throw alreadyRunning(file, last?.pid ?? 0);
}

/**
 * Deletes a stale lock, only if it is still the stale one. Takeovers are serialised by a second
 * O_EXCL file, so two starters that both saw the lock stale cannot delete a fresh lock one of
 * them has just taken; creating the lock itself needs no mutex (O_EXCL decides).
 */
function takeOver(file: string, staleText: string): void {
  const mutex = `${file}.takeover`;
  try {
    fs.closeSync(fs.openSync(mutex, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Held for microseconds; one older than this was left by a starter that died holding it.
    if (Date.now() - statMtime(mutex) > 5000) fs.rmSync(mutex, { force: true });
    else sleepSync(20);
    return;
  }
  try {
    if (read(file)?.text === staleText) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(mutex, { force: true });
  }
}

function holding(file: string): DataDirLock {
  held.add(file);
  const release = () => {
    if (!held.delete(file)) return;
    process.off('exit', release);
    const c = read(file)?.content;
    if (c?.pid === process.pid) fs.rmSync(file, { force: true });
  };
  process.on('exit', release);
  return { file, pid: process.pid, release };
}

function statMtime(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
