/**
 * Agent processes shared by conversations: one process per key (what makes two processes differ:
 * the binary, its arguments, its environment, for some agents the directory), each conversation
 * leasing it for as long as its session lives. The last lease ending ends the process (stdin closed,
 * then its group killed); a process that died is replaced at the next lease; stopAll kills them all
 * and waits for those on their way out. Codex's app-servers (codex/server/servers.ts) and the ACP
 * agents (acp/processes.ts) are pools of this kind, each measured cheaper than a process per
 * conversation.
 */
import { createHash } from 'node:crypto';
import type { ExitInfo } from '../claude/process.js';

/** What the pool needs of a process (AgentProcess and what wraps it: AppServer, AcpConnection). */
export interface PooledProcess {
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
  alive(): boolean;
  /** Records why, closes stdin, kills the group after waitMs. */
  end(reason: string, waitMs: number, graceMs: number): Promise<ExitInfo>;
  /** Records why, SIGTERM to the group, SIGKILL after graceMs. */
  kill(reason: string, graceMs: number): Promise<ExitInfo>;
}

export interface PoolLease<P> {
  proc: P;
  /** Other conversations lease the process too. */
  shared(): boolean;
  /** Ends this conversation's use; the last one ends the process (the reason recorded first). */
  release(reason: string): Promise<void>;
}

export interface PoolOptions {
  /** SIGTERM -> SIGKILL delay when a process is stopped. Default 3 s. */
  killGraceMs?: number;
}

/** How long an idle process may take to exit after its stdin closed before it is killed. */
const IDLE_EXIT_WAIT_MS = 2_000;

/** A short stable key for what makes a process: its parts as JSON, the environment sorted by name. */
export function processKey(parts: unknown[], env: Record<string, string>): string {
  const sorted = Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify([...parts, sorted]))
    .digest('hex')
    .slice(0, 16);
}

interface Entry<P> {
  proc: P;
  key: string;
  users: Set<symbol>;
}

export class ProcessPool<P extends PooledProcess> {
  private readonly entries = new Map<string, Entry<P>>();
  private readonly leaving = new Set<Promise<unknown>>();
  private stopping = false;

  constructor(private readonly opts: PoolOptions = {}) {}

  /**
   * A live process for the key, started by `start` when there is none. `onExit` hears of the process's exit while
   * this lease holds it. `label` names the conversation.
   */
  lease(key: string, label: string, start: () => P, onExit?: (proc: P, info: ExitInfo) => void): PoolLease<P> {
    if (this.stopping) throw new Error('the agent processes are stopped: Rudder is shutting down');
    let entry = this.entries.get(key);
    if (!entry?.proc.alive()) entry = this.add(key, start());
    const held = entry;
    const user = Symbol(label);
    held.users.add(user);
    if (onExit)
      void held.proc.exited.then((info) => {
        if (held.users.has(user)) onExit(held.proc, info);
      });
    let released = false;
    return {
      proc: held.proc,
      shared: () => held.users.size > 1,
      release: async (reason) => {
        if (released) return;
        released = true;
        held.users.delete(user);
        if (held.users.size > 0 || !held.proc.alive()) return;
        if (this.entries.get(held.key) === held) this.entries.delete(held.key);
        await this.track(
          held.proc.end(`no conversation uses it any more (last: ${reason})`, IDLE_EXIT_WAIT_MS, this.grace()),
        );
      },
    };
  }

  /** The live processes, for status: each with its key and how many conversations lease it. */
  list(): Array<{ proc: P; key: string; conversations: number }> {
    return [...this.entries.values()]
      .filter((e) => e.proc.alive())
      .map((e) => ({ proc: e.proc, key: e.key, conversations: e.users.size }));
  }

  /** Stops every process (the reason recorded first) and waits for those already on their way out. */
  async stopAll(reason: string): Promise<void> {
    this.stopping = true;
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all([...all.map((e) => e.proc.kill(reason, this.grace())), ...this.leaving]);
  }

  private add(key: string, proc: P): Entry<P> {
    const entry: Entry<P> = { proc, key, users: new Set() };
    this.entries.set(key, entry);
    void proc.exited.then(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry;
  }

  private grace(): number {
    return this.opts.killGraceMs ?? 3_000;
  }

  private async track(p: Promise<unknown>): Promise<void> {
    this.leaving.add(p);
    try {
      await p;
    } finally {
      this.leaving.delete(p);
    }
  }
}
