/**
 * The ACP agent processes of a gateway, one per distinct command, environment and directory: the
 * conversations of one project directory that run the same agent are sessions of one process,
 * as the agents allow. Measured (bench/acp/main.ts): a further session costs Gemini about 3 MB
 * against about 280 MB for a process of its own, Copilot 4 MB against 150, codex-acp 2 against 30,
 * Claude's adapter (a CLI per session) 60 against 180. A conversation leases the process for as
 * long as its session lives; the last lease ending ends it. Updates and requests go to the session
 * they name; the process's exit is told to every lease. A session given no pool gets one of its
 * own, that is a process per conversation.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../../ops/logger.js';
import type { ExitInfo, ProcessTracker } from '../claude/process.js';
import type { AcpCommand } from './command.js';
import { AcpConnection } from './connection.js';
import { ACP_ERRORS, type ClientCapabilities, RequestError, type SessionNotification } from './protocol.js';

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

interface Entry {
  conn: AcpConnection;
  key: string;
  users: Set<symbol>;
  hosts: Map<string, Hosted>;
}

/** How long an idle agent may take to exit after its stdin closed before it is killed. */
const IDLE_EXIT_WAIT_MS = 2_000;

export function processKey(spec: ProcessSpec): string {
  const env = Object.entries(spec.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256')
    .update(JSON.stringify([spec.command.bin, spec.command.args, spec.cwd, env, spec.clientCapabilities]))
    .digest('hex')
    .slice(0, 16);
}

export class AcpProcesses {
  private readonly entries = new Map<string, Entry>();
  private readonly leaving = new Set<Promise<unknown>>();

  constructor(private readonly opts: AcpProcessesOptions) {}

  /** A live process for the spec, started when there is none; `onExit` hears of its exit. */
  lease(spec: ProcessSpec, label: string, onExit: (conn: AcpConnection, info: ExitInfo) => void): AcpLease {
    const key = processKey(spec);
    let entry = this.entries.get(key);
    if (!entry?.conn.alive()) entry = this.start(spec, key, label);
    const held = entry;
    const user = Symbol(label);
    held.users.add(user);
    void held.conn.exited.then((info) => {
      if (held.users.has(user)) onExit(held.conn, info);
    });
    let released = false;
    return {
      conn: held.conn,
      host: (sessionId, hosted) => {
        held.hosts.set(sessionId, hosted);
        return () => {
          if (held.hosts.get(sessionId) === hosted) held.hosts.delete(sessionId);
        };
      },
      shared: () => held.users.size > 1,
      release: async (reason) => {
        if (released) return;
        released = true;
        held.users.delete(user);
        if (held.users.size > 0 || !held.conn.alive()) return;
        if (this.entries.get(held.key) === held) this.entries.delete(held.key);
        await this.track(
          held.conn.end(`no conversation uses it any more (last: ${reason})`, IDLE_EXIT_WAIT_MS, this.grace()),
        );
      },
    };
  }

  /** The live processes, for status: pid and how many conversations lease each. */
  list(): Array<{ pid: number; conversations: number; sessions: number }> {
    return [...this.entries.values()]
      .filter((e) => e.conn.alive())
      .map((e) => ({ pid: e.conn.pid, conversations: e.users.size, sessions: e.hosts.size }));
  }

  /** Stops every process and waits for those on their way out. */
  async stopAll(reason: string): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all([...all.map((e) => e.conn.kill(reason, this.grace())), ...this.leaving]);
  }

  private start(spec: ProcessSpec, key: string, label: string): Entry {
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
            throw new RequestError(
              ACP_ERRORS.resourceNotFound,
              `Rudder holds no session ${String(sessionOf(params))}.`,
            );
          return hosted.request(method, params);
        },
      },
    });
    const entry: Entry = { conn, key, users: new Set(), hosts };
    this.entries.set(key, entry);
    void conn.exited.then(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry;
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
