/** Reading /proc (Linux) to find the agent processes of one chaos run, and nothing else. */
import fs from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  cmdline: string;
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

export function procInfo(pid: number): ProcInfo | undefined {
  const stat = read(`/proc/${pid}/stat`);
  const cmd = read(`/proc/${pid}/cmdline`);
  if (!stat || cmd === undefined) return undefined;
  // The command name in stat is in parentheses and may hold spaces: read the fields after it.
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  return { pid, ppid, cmdline: cmd.split('\0').join(' ').trim() };
}

export function alive(pid: number): boolean {
  const stat = read(`/proc/${pid}/stat`);
  // A zombie has exited; only its parent's wait is missing.
  return !!stat && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/** The direct children of a pid. */
export function childrenOf(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((t) => (read(`/proc/${pid}/task/${t}/children`) ?? '').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/**
 * Live processes that belong to this run: their environment names the run's private agent HOME
 * (every claude, the fake CLI and their tool processes inherit it). Processes of other runs and
 * of anyone else never match.
 */
export function processesOfRun(agentHome: string): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const env = read(`/proc/${pid}/environ`);
    if (!env?.split('\0').includes(`HOME=${agentHome}`)) continue;
    const info = procInfo(pid);
    if (info && alive(pid)) out.push(info);
  }
  return out;
}

/** Every descendant of a pid, children first. */
export function descendantsOf(pid: number): number[] {
  const kids = childrenOf(pid);
  return kids.flatMap((k) => [k, ...descendantsOf(k)]);
}
