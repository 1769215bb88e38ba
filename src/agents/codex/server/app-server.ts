/**
 * One `codex app-server` process and its connection: spawned in its own process group with the
 * agent environment and the orphan mark (agents/claude/process.ts does that, records the pid and
 * kills with the reason first), the initialize handshake, and the threads it hosts. Notifications
 * and server requests go to the thread they name; when the process dies, every thread is told.
 */
import { type ErrorCode, RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import { AgentProcess, type ExitInfo, type ProcessTracker } from '../../claude/process.js';
import type { InitializeResponse } from '../protocol/generated/index.js';
import {
  CLIENT_INFO,
  type ClientMethod,
  type ParamsOf,
  type RequestId,
  type ResultOf,
  RPC_ERRORS,
  threadOf,
  type v2,
} from '../protocol/index.js';
import { endThreadCommands } from './commands.js';
import { describeCodexExit } from './exit.js';
import { RpcConnection } from './rpc.js';

export interface ExitWhy {
  code: ErrorCode;
  detail: string;
}

export interface AppServerSpec {
  bin: string;
  /** `-c key=value` overrides (configArgs), after `app-server`. */
  configArgs: string[];
  env: Record<string, string>;
  /** The process's working directory (threads carry their own cwd). */
  cwd: string;
  logger: Logger;
  /** For log lines and the process tracker. */
  label: string;
  tracker?: ProcessTracker;
  markPrefix?: string;
}

/** What a thread hosted here is told. Calls come in the order the lines arrived. */
export interface ThreadHandler {
  notification(method: string, params: unknown): void;
  request(id: RequestId, method: string, params: unknown): void;
  /** The process is gone; `why` is the typed reason (AGENT_CRASHED, AGENT_STOPPED…). */
  exit(info: ExitInfo, why: ExitWhy): void;
}

/** How long start-up (spawn and initialize) may take before the server counts as broken. */
const INITIALIZE_TIMEOUT_MS = 60_000;

export class AppServer {
  readonly pid: number;
  /** Resolves once initialize was answered; rejects when the process could not start or answer. */
  readonly ready: Promise<InitializeResponse>;
  readonly exited: Promise<ExitInfo>;
  private readonly proc: AgentProcess;
  private readonly rpc: RpcConnection;
  private readonly threads = new Map<string, ThreadHandler>();
  private readonly log: Logger;
  private limits: v2.RateLimitSnapshot | undefined;
  private exitWhy: ExitWhy | undefined;

  private constructor(spec: AppServerSpec) {
    this.log = spec.logger.child({ codexServer: spec.label });
    this.proc = AgentProcess.spawn({
      bin: spec.bin,
      args: ['app-server', ...spec.configArgs],
      cwd: spec.cwd,
      env: spec.env,
      logger: this.log,
      label: spec.label,
      tracker: spec.tracker,
      markPrefix: spec.markPrefix,
      missingBinaryCode: 'CODEX_BINARY_MISSING',
    });
    this.pid = this.proc.pid;
    this.rpc = new RpcConnection(
      (line) => this.proc.write(line),
      {
        notification: (m, p) => this.onNotification(m, p),
        request: (id, m, p) => this.onRequest(id, m, p),
      },
      this.log,
    );
    this.proc.onLine((line) => this.rpc.handleLine(line));
    this.exited = this.proc.exited.then((info) => this.onExit(info));
    this.ready = this.rpc
      .request('initialize', { clientInfo: CLIENT_INFO, capabilities: null }, INITIALIZE_TIMEOUT_MS)
      .then((r) => {
        this.rpc.notify('initialized');
        this.log.info({ pid: this.pid, userAgent: r.userAgent, codexHome: r.codexHome }, 'codex app-server ready');
        return r;
      });
    // A caller that never awaits ready must not trigger an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  /** Spawns the server; a missing binary or working directory throws at once, other failures reject `ready`. */
  static start(spec: AppServerSpec): AppServer {
    return new AppServer(spec);
  }

  alive(): boolean {
    return this.proc.alive();
  }

  /** Sends a request once the handshake is done. */
  async request<M extends ClientMethod>(method: M, params: ParamsOf<M>, timeoutMs?: number): Promise<ResultOf<M>> {
    await this.ready;
    return this.rpc.request(method, params, timeoutMs);
  }

  /** Answers a server request; false when the server is gone. */
  respond(id: RequestId, result: unknown): boolean {
    return this.rpc.respond(id, result);
  }

  respondError(id: RequestId, code: number, message: string): boolean {
    return this.rpc.respondError(id, code, message);
  }

  /** Routes a thread's traffic to its handler; returns the undo. */
  host(threadId: string, handler: ThreadHandler): () => void {
    this.threads.set(threadId, handler);
    return () => {
      if (this.threads.get(threadId) === handler) this.threads.delete(threadId);
    };
  }

  hostedThreads(): number {
    return this.threads.size;
  }

  /** The account's rate limits as codex last reported them (account/rateLimits/updated). */
  rateLimits(): v2.RateLimitSnapshot | undefined {
    return this.limits;
  }

  stderrTail(): string[] {
    return this.proc.stderrTail();
  }

  /** Ends the commands a thread started (all of them, or those `include` keeps); resolves when they are gone. */
  endCommands(threadId: string, graceMs: number, include?: (toolCallId: string | undefined) => boolean) {
    return endThreadCommands(threadId, { include, graceMs, spareGroups: [this.pid] });
  }

  /** Records why, closes stdin (the server exits at once when idle), then kills the group after waitMs. */
  end(reason: string, waitMs: number, graceMs: number): Promise<ExitInfo> {
    return this.proc.end(reason, waitMs, graceMs);
  }

  kill(reason: string, graceMs: number): Promise<ExitInfo> {
    return this.proc.kill(reason, graceMs);
  }

  private onNotification(method: string, params: unknown): void {
    if (method === 'account/rateLimits/updated') {
      this.mergeLimits((params as v2.AccountRateLimitsUpdatedNotification).rateLimits);
      return;
    }
    const threadId = threadOf(params);
    const handler = threadId ? this.threads.get(threadId) : undefined;
    if (handler) {
      try {
        handler.notification(method, params);
      } catch (err) {
        this.log.error({ err, method, threadId }, 'codex app-server: error while handling a notification');
      }
      return;
    }
    this.log.debug({ method, threadId: threadId ?? null }, 'codex app-server: notification for no hosted thread');
  }

  /** A rolling update is sparse: what it leaves out keeps its last value. */
  private mergeLimits(update: v2.RateLimitSnapshot): void {
    const prev = this.limits;
    const keep = <T>(next: T | null, old: T | null | undefined): T | null => next ?? old ?? null;
    this.limits = {
      ...update,
      primary: keep(update.primary, prev?.primary),
      secondary: keep(update.secondary, prev?.secondary),
    };
  }

  private onRequest(id: RequestId, method: string, params: unknown): void {
    const threadId = threadOf(params);
    const handler = threadId ? this.threads.get(threadId) : undefined;
    if (!handler) {
      // Unanswered, the server would wait for ever.
      this.log.warn({ method, threadId: threadId ?? null }, 'codex app-server: a request for no hosted thread refused');
      this.rpc.respondError(id, RPC_ERRORS.methodNotFound, `Rudder does not handle ${method} here`);
      return;
    }
    try {
      handler.request(id, method, params);
    } catch (err) {
      this.log.error({ err, method, threadId }, 'codex app-server: error while handling a request');
      this.rpc.respondError(id, RPC_ERRORS.invalidRequest, 'Rudder failed to handle this request');
    }
  }

  private onExit(info: ExitInfo): ExitInfo {
    const why = describeCodexExit(info, this.proc.stderrTail());
    this.exitWhy = why;
    this.log[info.reason ? 'info' : 'warn'](
      { pid: this.pid, exitCode: info.code, signal: info.signal, reason: info.reason, threads: this.threads.size },
      'codex app-server exited',
    );
    this.rpc.close(
      new RudderError(why.code, why.detail, {
        pid: this.pid,
        exitCode: info.code,
        signal: info.signal,
        stderr: this.proc.stderrTail().slice(-5),
      }),
    );
    const handlers = [...this.threads.values()];
    this.threads.clear();
    for (const h of handlers) {
      try {
        h.exit(info, why);
      } catch (err) {
        this.log.error({ err }, 'codex app-server: error while telling a thread it exited');
      }
    }
    return info;
  }

  /** Why the server is gone, once it is. */
  exitReason(): ExitWhy | undefined {
    return this.exitWhy;
  }
}
