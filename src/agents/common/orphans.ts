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

function markOf(pid: number): string | undefined {
  try {
    const env = fs.readFileSync(`/proc/${pid}/environ`, 'latin1');
    const at = env.indexOf(`${MARK_VAR}=`);
    if (at < 0 || (at > 0 && env[at - 1] !== '\0')) return undefined;
    const end = env.indexOf('\0', at);
    return env.slice(at + MARK_VAR.length + 1, end < 0 ? undefined : end);
  } catch {
    return undefined; // gone, or another user's process
  }
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
