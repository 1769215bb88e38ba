/**
 * The app-servers of a gateway, shared: one process hosts the threads of every conversation that
 * runs the same binary with the same config and environment (bench/codex/process-model.ts: a further warm
 * conversation costs about 2 MB as a thread of a shared server, about 21 MB as a server of its
 * own). A conversation leases the server for as long as its session lives; the last lease ending
 * ends the process. A server that died is replaced at the next lease; the threads it cut off are
 * told (ThreadHandler.exit), the others resume on the new one at their next turn.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import type { Logger } from '../../../ops/logger.js';
import type { ProcessTracker } from '../../claude/process.js';
import { AppServer } from './app-server.js';

export interface ServerKey {
  bin: string;
  configArgs: string[];
  env: Record<string, string>;
}

export interface Lease {
  server: AppServer;
  /** Ends this conversation's use; the last one ends the process (the reason is recorded first). */
  release(reason: string): Promise<void>;
}

export interface CodexServersOptions {
  logger: Logger;
  tracker?: ProcessTracker;
  markPrefix?: string;
  /** SIGTERM -> SIGKILL delay when a server is stopped. Default 3 s. */
  killGraceMs?: number;
}

interface Entry {
  server: AppServer;
  users: Set<symbol>;
  key: string;
}

/** How long an idle server may take to exit after its stdin closed (0.171 exits at once) before it is killed. */
const IDLE_EXIT_WAIT_MS = 2_000;

export function serverKey(k: ServerKey): string {
  const env = Object.entries(k.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify([k.bin, k.configArgs, env]))
    .digest('hex')
    .slice(0, 16);
}

export class CodexServers {
  private readonly entries = new Map<string, Entry>();
  private readonly leaving = new Set<Promise<unknown>>();
  private stopping = false;

  constructor(private readonly opts: CodexServersOptions) {}

  /** A live server for the key, started when there is none; `label` names the conversation in logs. */
  lease(k: ServerKey, label: string): Lease {
    if (this.stopping) throw new Error('CodexServers: stopped');
    const key = serverKey(k);
    let entry = this.entries.get(key);
    if (!entry?.server.alive()) {
      const server = AppServer.start({
        bin: k.bin,
        configArgs: k.configArgs,
        env: k.env,
        cwd: workDir(k.env),
        logger: this.opts.logger,
        label: `codex:${key.slice(0, 8)}`,
        tracker: this.opts.tracker,
        markPrefix: this.opts.markPrefix,
      });
      const fresh: Entry = { server, users: new Set(), key };
      entry = fresh;
      this.entries.set(key, fresh);
      void server.exited.then(() => {
        if (this.entries.get(key) === fresh) this.entries.delete(key);
      });
      this.opts.logger.info({ pid: server.pid, server: key.slice(0, 8), first: label }, 'codex app-server started');
    }
    const user = Symbol(label);
    const held = entry;
    held.users.add(user);
    let released = false;
    return {
      server: held.server,
      release: async (reason) => {
        if (released) return;
        released = true;
        held.users.delete(user);
        if (held.users.size > 0 || !held.server.alive()) return;
        if (this.entries.get(held.key) === held) this.entries.delete(held.key);
        await this.track(
          held.server.end(`no conversation uses it any more (last: ${reason})`, IDLE_EXIT_WAIT_MS, this.grace()),
        );
      },
    };
  }

  /** The live servers, for status: pid, how many conversations lease each, how many threads it hosts. */
  list(): Array<{ pid: number; server: string; conversations: number; threads: number }> {
    return [...this.entries.values()]
      .filter((e) => e.server.alive())
      .map((e) => ({
        pid: e.server.pid,
        server: e.key.slice(0, 8),
        conversations: e.users.size,
        threads: e.server.hostedThreads(),
      }));
  }

  /** Stops every server (the reason recorded first) and waits for servers already on their way out. */
  async stopAll(reason: string): Promise<void> {
    this.stopping = true;
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all([...all.map((e) => e.server.kill(reason, this.grace())), ...this.leaving]);
  }

  private grace(): number {
    return this.opts.killGraceMs ?? 3_000;
  }

  private async track<T>(p: Promise<T>): Promise<void> {
    this.leaving.add(p);
    try {
      await p;
    } finally {
      this.leaving.delete(p);
    }
  }
}

/** The server's own working directory: the agent's HOME (threads carry their own cwd). */
function workDir(env: Record<string, string>): string {
  const home = env.HOME ?? os.homedir();
  return fs.existsSync(home) ? home : os.tmpdir();
}
