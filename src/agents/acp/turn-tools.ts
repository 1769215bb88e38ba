/**
 * The commands a stopped turn left running. An agent starts its shell commands in sessions of
 * their own (setsid), outside the agent's process group, and not every agent ends them on
 * `session/cancel` (codex-acp 0.16 leaves them running, as Codex's app-server does). Every process
 * the agent starts carries its environment mark (agents/common/orphans.ts); those outside the
 * agent's own group that started after the turn began are the turn's commands, when they name its
 * session (codex-acp sets CODEX_THREAD_ID to it) or the process serves no other conversation:
 * their groups get SIGTERM, then SIGKILL after the grace.
 */
import fs from 'node:fs';
import { startTimeOf } from '../../ops/proc.js';
import { processGone } from '../codex/server/commands.js';
import { MARK_VAR, markedPids } from '../common/orphans.js';

/** Linux reports process start times in USER_HZ ticks, 100 a second on every architecture. */
const TICKS_PER_SECOND = 100;

/** A variable of a process's environment (one Rudder may read: its own user's). */
function envOf(pid: number, name: string): string | undefined {
  try {
    const entry = fs
      .readFileSync(`/proc/${pid}/environ`, 'latin1')
      .split('\0')
      .find((e) => e.startsWith(`${name}=`));
    return entry?.slice(name.length + 1);
  } catch {
    return undefined;
  }
}

/** Where an agent names the session a command runs for (codex-acp: the ACP session id). */
const SESSION_VARS = ['CODEX_THREAD_ID'];

function groupOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

/** An epoch time in ticks since boot (the unit of startTimeOf). */
function ticksAt(epochMs: number): number {
  const uptime = Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  return (uptime - (Date.now() - epochMs) / 1000) * TICKS_PER_SECOND;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function signal(pid: number, sig: NodeJS.Signals, spare: Set<number>): void {
  const group = groupOf(pid);
  for (const target of group && group > 1 && !spare.has(group) ? [-group, pid] : [pid]) {
    try {
      process.kill(target, sig);
    } catch {
      // already gone
    }
  }
}

export interface TurnOf {
  agentPid: number;
  sinceMs: number;
  sessionId: string | undefined;
  /** Other conversations' sessions run in the process: a command that names no session is not known to be ours. */
  shared: boolean;
}

function ours(pid: number, t: TurnOf): boolean {
  const named = SESSION_VARS.map((v) => envOf(pid, v)).find((v) => v !== undefined);
  return named === undefined ? !t.shared : named === t.sessionId;
}

/** The agent's marked processes outside its group, started since the turn began, of the turn's session. */
export function turnTools(t: TurnOf): number[] {
  const { agentPid, sinceMs } = t;
  const mark = envOf(agentPid, MARK_VAR);
  if (!mark) return [];
  let since: number;
  try {
    since = ticksAt(sinceMs) - 1;
  } catch {
    return [];
  }
  return markedPids((m) => m === mark).filter(
    (pid) => pid !== agentPid && groupOf(pid) !== agentPid && Number(startTimeOf(pid)) >= since && ours(pid, t),
  );
}

/** Ends them (SIGTERM, then SIGKILL after graceMs); resolves with the pids once they are gone. */
export async function endTurnTools(t: TurnOf, graceMs: number): Promise<number[]> {
  const found = turnTools(t);
  if (found.length === 0) return [];
  const spare = new Set([t.agentPid, groupOf(process.pid) ?? process.pid]);
  for (const pid of found) signal(pid, 'SIGTERM', spare);
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && !found.every(processGone)) await sleep(25);
  for (const pid of found.filter((p) => !processGone(p))) signal(pid, 'SIGKILL', spare);
  return found;
}
