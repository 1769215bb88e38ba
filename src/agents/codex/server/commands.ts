/**
 * The commands a thread started, found and ended from outside codex. A command runs in a session
 * of its own (setsid) under the app-server, and `turn/interrupt` leaves it running (observed on
 * 0.171: a `sleep 30` outlived its interrupted turn). Codex puts the thread id and the tool call id
 * in each command's environment (CODEX_THREAD_ID, CODEX_TOOL_CALL_ID), which its children inherit,
 * so Rudder finds exactly one thread's (or one turn's) processes and kills their process groups.
 */
import fs from 'node:fs';

export interface CommandProcess {
  pid: number;
  pgid: number;
  toolCallId: string | undefined;
}

/** The variables of a process Rudder may read (its own user's), undefined when it is gone. */
function environOf(pid: number): Map<string, string> | undefined {
  let raw: string;
  try {
    raw = fs.readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return undefined;
  }
  const env = new Map<string, string>();
  for (const entry of raw.split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

/** Process group and state from /proc/<pid>/stat (the command name may hold spaces and parentheses). */
function statOf(pid: number): { pgid: number; state: string } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, pgid: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/** True when the pid is gone or only a zombie waiting for its parent. */
export function processGone(pid: number): boolean {
  const s = statOf(pid);
  return s === undefined || s.state === 'Z' || s.state === 'X';
}

/** Live processes started for a thread, optionally only those of some tool calls. */
export function threadCommands(
  threadId: string,
  include?: (toolCallId: string | undefined) => boolean,
): CommandProcess[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const out: CommandProcess[] = [];
  for (const e of entries) {
    const pid = Number(e);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const env = environOf(pid);
    if (env?.get('CODEX_THREAD_ID') !== threadId) continue;
    const toolCallId = env.get('CODEX_TOOL_CALL_ID');
    if (include && !include(toolCallId)) continue;
    const stat = statOf(pid);
    if (!stat || stat.state === 'Z') continue;
    out.push({ pid, pgid: stat.pgid, toolCallId });
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function signal(p: CommandProcess, sig: NodeJS.Signals, spare: Set<number>): void {
  // The command's own group (its session leader's), never one Rudder or the app-server lead.
  if (p.pgid > 1 && !spare.has(p.pgid)) {
    try {
      process.kill(-p.pgid, sig);
    } catch {
      // already gone
    }
  }
  try {
    process.kill(p.pid, sig);
  } catch {
    // already gone
  }
}

/**
 * SIGTERM to each matching process and its group, SIGKILL to what is left after graceMs, and
 * resolves when every one is gone (or after a last bounded wait). Returns the pids it ended.
 * `spareGroups`: process groups never signalled (the app-server's own).
 */
export async function endThreadCommands(
  threadId: string,
  opts: { include?: (toolCallId: string | undefined) => boolean; graceMs: number; spareGroups?: number[] },
): Promise<number[]> {
  const spare = new Set([process.pid, ...(opts.spareGroups ?? [])]);
  try {
    spare.add(statOf(process.pid)?.pgid ?? process.pid);
  } catch {
    // no /proc
  }
  const found = threadCommands(threadId, opts.include);
  if (found.length === 0) return [];
  for (const p of found) signal(p, 'SIGTERM', spare);
  const deadline = Date.now() + opts.graceMs;
  while (Date.now() < deadline && !found.every((p) => processGone(p.pid))) await sleep(25);
  // Anything the command started meanwhile carries the same variables: look again.
  const left = [...found.filter((p) => !processGone(p.pid)), ...threadCommands(threadId, opts.include)];
  for (const p of left) signal(p, 'SIGKILL', spare);
  const last = Date.now() + 2_000;
  while (Date.now() < last && !left.every((p) => processGone(p.pid))) await sleep(25);
  return [...new Set([...found, ...left].map((p) => p.pid))];
}
