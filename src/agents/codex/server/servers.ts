/**
 * The app-servers of a gateway, shared: one process hosts the threads of every conversation that
 * runs the same binary with the same config and environment (bench/codex/process-model.ts: a further warm
 * conversation costs about 2 MB as a thread of a shared server, about 21 MB as a server of its
 * own). A pool of common/process-pool.ts: a conversation leases the server for as long as its session
 * lives; the last lease ending ends the process. A server that died is replaced at the next lease; the
 * threads it cut off are told (ThreadHandler.exit), the others resume on the new one at their next turn.
 */
import fs from 'node:fs';
import os from 'node:os';
import type { Logger } from '../../../ops/logger.js';
import type { ProcessTracker } from '../../claude/process.js';
import { ProcessPool, processKey } from '../../common/process-pool.js';
import type { SharedProcessStatus } from '../../common/process-status.js';
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

export class CodexServers {
  private readonly pool: ProcessPool<AppServer>;

  constructor(private readonly opts: CodexServersOptions) {
    this.pool = new ProcessPool({ killGraceMs: opts.killGraceMs });
  }

  /** A live server for the key, started when there is none; `label` names the conversation in logs. */
  lease(k: ServerKey, label: string): Lease {
    const key = processKey([k.bin, k.configArgs], k.env);
    const lease = this.pool.lease(key, label, () => {
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
      this.opts.logger.info({ pid: server.pid, server: key.slice(0, 8), first: label }, 'codex app-server started');
      return server;
    });
    return { server: lease.proc, release: lease.release };
  }

  /** The live servers as the status report shows them. */
  status(): SharedProcessStatus[] {
    return this.pool.list().map((e) => ({
      pid: e.proc.pid,
      agent: 'Codex',
      conversations: e.conversations,
      sessions: e.proc.hostedThreads(),
      stderrTail: e.proc.stderrTail().slice(-5),
    }));
  }

  /** Stops every server (the reason recorded first) and waits for servers already on their way out. */
  stopAll(reason: string): Promise<void> {
    return this.pool.stopAll(reason);
  }
}

/** The server's own working directory: the agent's HOME (threads carry their own cwd). */
function workDir(env: Record<string, string>): string {
  const home = env.HOME ?? os.homedir();
  return fs.existsSync(home) ? home : os.tmpdir();
}
