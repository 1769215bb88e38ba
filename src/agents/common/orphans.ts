/**
 * Finding what an agent left behind. Claude Code starts each tool in a session of its own
 * (setsid), outside the process group Rudder kills, so a tool can outlive a killed agent. Every
 * agent process gets a mark in its environment, which its tools inherit; after the agent exits,
 * and at the next start of Rudder, processes carrying the mark are killed.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const MARK_VAR = 'RUDDER_AGENT_MARK';

/** The mark prefix of every agent process of this data dir, so a restart finds exactly its leftovers. */
export function markPrefixOf(dataDir: string): string {
  return `rudder-${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12)}`;
}

export function newMark(prefix = 'rudder'): string {
  return `${prefix}:${randomUUID()}`;
}

const MARK_KEY = Buffer.from(`${MARK_VAR}=`, 'latin1');

/**
 * One buffer for every read of /proc/<pid>/environ: a scan reads every process's after each agent exits, and a
 * fresh buffer per read left megabytes of garbage per turn that the allocator kept after the collector freed it.
 */
let environ = Buffer.allocUnsafeSlow(64 * 1024);

/** Reads /proc/<pid>/environ into `environ`; its length, or undefined when it cannot be read. */
function readEnviron(pid: number): number | undefined {
  let fd: number;
  try {
    fd = fs.openSync(`/proc/${pid}/environ`, 'r');
  } catch {
    return undefined; // gone, or another user's process
  }
  try {
    let len = 0;
    for (;;) {
      if (len === environ.length) environ = Buffer.concat([environ.subarray(0, len)], len * 2);
      const n = fs.readSync(fd, environ, len, environ.length - len, null);
      if (n === 0) return len;
      len += n;
    }
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function markOf(pid: number): string | undefined {
  const len = readEnviron(pid);
  if (len === undefined) return undefined;
  const env = environ.subarray(0, len);
  const at = env.indexOf(MARK_KEY);
  if (at < 0 || (at > 0 && env[at - 1] !== 0)) return undefined;
  const end = env.indexOf(0, at);
  return env.toString('latin1', at + MARK_KEY.length, end < 0 ? len : end);
}

/** Live processes whose mark satisfies the test (never this process). */
export function markedPids(match: (mark: string) => boolean): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return []; // no /proc: nothing to find this way
  }
  const out: number[] = [];
  for (const e of entries) {
    const pid = Number(e);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const mark = markOf(pid);
    if (mark !== undefined && match(mark)) out.push(pid);
  }
  return out;
}

/** SIGKILLs every process carrying a matching mark; returns how many. */
export function killMarked(match: (mark: string) => boolean): number {
  let n = 0;
  for (const pid of markedPids(match)) {
    try {
      process.kill(pid, 'SIGKILL');
      n++;
    } catch {
      // exited meanwhile
    }
  }
  return n;
}
