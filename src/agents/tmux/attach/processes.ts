/**
 * The processes behind a person's tmux pane, read from /proc (Linux), never by typing anything: the
 * pane's program and everything it started, and which of them is a Claude Code CLI. A CLI writes
 * `<config dir>/sessions/<pid>.<hash>.key` as it starts and `sessions/<pid>.json` (its session id,
 * cwd, `procStart`, `entrypoint` cli or sdk-cli) once it has a session, so a TUI still showing a
 * startup dialog (the trust question) is a CLI without a session yet. The config dir is the
 * process's own: its CLAUDE_CONFIG_DIR, else $HOME/.claude from its environment.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startTimeOf } from '../../../ops/proc.js';
import { MARK_VAR } from '../../common/orphans.js';
import { claudeConfigDir } from '../transcript/transcript.js';

export interface ClaudeProcess {
  pid: number;
  /** With the pid, names this one process even after the pid is reused. */
  procStart: string | undefined;
  configDir: string;
  /** Its session; undefined while a startup dialog shows (the CLI has not made one yet). */
  session: { id: string; cwd: string; entrypoint: string | undefined } | undefined;
  /** The directory it runs in (/proc/<pid>/cwd). */
  cwd: string | undefined;
  /** The tmux server it was started under (the socket path in its TMUX variable), if any. */
  tmuxSocket: string | undefined;
  /** The terminal it runs on, when it has one (a TUI outside tmux). */
  tty: string | undefined;
  /** Rudder started it (it carries an agent mark): a conversation's own agent, never someone's terminal. */
  rudders: boolean;
}

const ENV_READ = ['HOME', 'CLAUDE_CONFIG_DIR', 'TMUX', MARK_VAR] as const;

/** The variables of a process's environment this file reads; undefined when it is gone or not ours to read. */
export function environOf(pid: number): Partial<Record<(typeof ENV_READ)[number], string>> | undefined {
  let raw: string;
  try {
    raw = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    return undefined;
  }
  const out: Partial<Record<(typeof ENV_READ)[number], string>> = {};
  for (const kv of raw.split('\0')) {
    const eq = kv.indexOf('=');
    const key = kv.slice(0, eq) as (typeof ENV_READ)[number];
    if (eq > 0 && ENV_READ.includes(key)) out[key] = kv.slice(eq + 1);
  }
  return out;
}

/** Every process's children, from one pass over /proc. */
export function childrenByParent(): Map<number, number[]> {
  const map = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return map;
  }
  for (const e of entries) {
    const pid = Number(e);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      map.set(ppid, [...(map.get(ppid) ?? []), pid]);
    } catch {
      // exited meanwhile
    }
  }
  return map;
}

/** A process and everything below it, parents first. */
export function processTree(pid: number, children: Map<number, number[]>): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

function commandName(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

function linkOf(file: string): string | undefined {
  try {
    return fs.readlinkSync(file);
  } catch {
    return undefined;
  }
}

/** The CLI's file of this pid: its session once it has one. `procStart` must match (a reused pid's file does not). */
export function sessionFile(
  configDir: string,
  pid: number,
  procStart: string | undefined,
): ClaudeProcess['session'] | null {
  let d: { pid?: unknown; sessionId?: unknown; cwd?: unknown; procStart?: unknown; entrypoint?: unknown };
  try {
    d = JSON.parse(fs.readFileSync(path.join(configDir, 'sessions', `${pid}.json`), 'utf8'));
  } catch {
    return null;
  }
  if (d.pid !== pid || typeof d.sessionId !== 'string') return null;
  if (typeof d.procStart === 'string' && procStart !== undefined && d.procStart !== procStart) return null;
  return {
    id: d.sessionId,
    cwd: typeof d.cwd === 'string' ? d.cwd : '',
    entrypoint: typeof d.entrypoint === 'string' ? d.entrypoint : undefined,
  };
}

/** Whether the CLI left its start-up file (`<pid>.<hash>.key`) though it has no session file yet. */
function startedCli(configDir: string, pid: number): boolean {
  try {
    return fs.readdirSync(path.join(configDir, 'sessions')).some((f) => f.startsWith(`${pid}.`));
  } catch {
    return false;
  }
}

/** The process as a Claude Code CLI; undefined when it is not one (or is gone). */
export function claudeProcess(pid: number): ClaudeProcess | undefined {
  const comm = commandName(pid);
  if (!/^(claude|claude\.exe|node)$/.test(comm)) return undefined;
  const env = environOf(pid);
  if (!env) return undefined;
  const configDir = claudeConfigDir({ HOME: env.HOME, CLAUDE_CONFIG_DIR: env.CLAUDE_CONFIG_DIR });
  const procStart = startTimeOf(pid);
  const session = sessionFile(configDir, pid, procStart);
  if (!session && !startedCli(configDir, pid)) return undefined;
  const tty = linkOf(`/proc/${pid}/fd/0`);
  return {
    pid,
    procStart,
    configDir,
    session: session ?? undefined,
    cwd: linkOf(`/proc/${pid}/cwd`),
    tmuxSocket: env.TMUX ? env.TMUX.split(',')[0] : undefined,
    tty: tty?.startsWith('/dev/') ? tty : undefined,
    rudders: env[MARK_VAR] !== undefined,
  };
}

/** The same process still runs (its start time unchanged). */
export function sameProcess(pid: number, procStart: string | undefined): boolean {
  const now = startTimeOf(pid);
  return now !== undefined && (procStart === undefined || now === procStart);
}
