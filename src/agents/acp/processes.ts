/**
 * The ACP agent processes of a gateway, one per distinct command, environment and directory: the
 * conversations of one project directory that run the same agent are sessions of one process,
 * as the agents allow. Measured (bench/acp): a further session costs Gemini about 3 MB
 * against about 280 MB for a process of its own, Copilot 4 MB against 150, codex-acp 2 against 30,
 * Claude's adapter (a CLI per session) 60 against 180. A pool of common/process-pool.ts: a
 * conversation leases the process for as long as its session lives; the last lease ending ends it.
 * Updates and requests go to the session they name; the process's exit is told to every lease. A
 * session given no pool gets one of its own, that is a process per conversation.
 */
import type { Logger } from '../../ops/logger.js';
import type { ExitInfo, ProcessTracker } from '../claude/process.js';
import { ProcessPool, processKey } from '../common/process-pool.js';
import type { SharedProcessStatus } from '../common/process-status.js';
import type { AcpCommand } from './command.js';
import { AcpConnection } from './connection.js';
import { ACP_ERRORS, acpRequestError, type ClientCapabilities, type SessionNotification } from './protocol.js';

/** What a session hosted in a process is given: its updates and the agent's requests about it. */
export interface Hosted {
  update(n: SessionNotification): void;
  request(method: string, params: unknown): Promise<unknown>;
}

export interface ProcessSpec {
  command: AcpCommand;
  /** The process's working directory: the conversation's (part of the key: one process per directory). */
  cwd: string;
  env: Record<string, string>;
  clientCapabilities: ClientCapabilities;
  initTimeoutMs?: number;
}

export interface AcpLease {
  conn: AcpConnection;
  /** Routes a session's traffic to it; returns the undo. */
  host(sessionId: string, hosted: Hosted): () => void;
  /** Other conversations use the process too. */
  shared(): boolean;
  /** Ends this conversation's use; the last one ends the process (the reason recorded first). */
  release(reason: string): Promise<void>;
}

export interface AcpProcessesOptions {
  logger: Logger;
  tracker?: ProcessTracker;
  markPrefix?: string;
  /** SIGTERM -> SIGKILL delay when a process is stopped. Default 3 s. */
  killGraceMs?: number;
}

export class AcpProcesses {
  private readonly pool: ProcessPool<AcpConnection>;
  /** Each process's sessions, by id: where its updates and requests go. */
  private readonly hosts = new WeakMap<AcpConnection, Map<string, Hosted>>();

  constructor(private readonly opts: AcpProcessesOptions) {
    this.pool = new ProcessPool({ killGraceMs: opts.killGraceMs });
  }

  /** A live process for the spec, started when there is none; `onExit` hears of its exit. */
  lease(spec: ProcessSpec, label: string, onExit: (conn: AcpConnection, info: ExitInfo) => void): AcpLease {
    const key = processKey([spec.command.bin, spec.command.args, spec.cwd, spec.clientCapabilities], spec.env);
    const lease = this.pool.lease(key, label, () => this.start(spec, label), onExit);
    const hosts = this.hosts.get(lease.proc)!;
    return {
      conn: lease.proc,
      host: (sessionId, hosted) => {
        hosts.set(sessionId, hosted);
        return () => {
          if (hosts.get(sessionId) === hosted) hosts.delete(sessionId);
        };
      },
      shared: lease.shared,
      release: lease.release,
    };
  }

  /** The live processes as the status report shows them. */
  status(): SharedProcessStatus[] {
    return this.pool.list().map((e) => ({
      pid: e.proc.pid,
      agent: e.proc.label,
      conversations: e.conversations,
      sessions: this.hosts.get(e.proc)?.size ?? 0,
      stderrTail: e.proc.stderrTail().slice(-5),
    }));
  }

  /** Stops every process and waits for those on their way out. */
  stopAll(reason: string): Promise<void> {
    return this.pool.stopAll(reason);
  }

  private start(spec: ProcessSpec, label: string): AcpConnection {
    const hosts = new Map<string, Hosted>();
    const sessionOf = (params: unknown) => (params as { sessionId?: unknown } | null)?.sessionId;
    const conn = AcpConnection.start({
      command: spec.command,
      cwd: spec.cwd,
      env: spec.env,
      logger: this.opts.logger,
      label,
      tracker: this.opts.tracker,
      markPrefix: this.opts.markPrefix,
      initTimeoutMs: spec.initTimeoutMs,
      clientCapabilities: spec.clientCapabilities,
      handlers: {
        onUpdate: (n) => hosts.get(n?.sessionId)?.update(n),
        onRequest: async (method, params) => {
          const hosted = hosts.get(String(sessionOf(params)));
          if (!hosted)
            throw acpRequestError(ACP_ERRORS.resourceNotFound, `Rudder holds no session ${String(sessionOf(params))}.`);
          return hosted.request(method, params);
        },
      },
    });
    this.hosts.set(conn, hosts);
    return conn;
  }
}
