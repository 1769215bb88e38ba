/**
 * A conversation's link to its agent: the process it leases (started when a turn needs it, shared
 * with the other conversations of its directory when the launch gives a pool), the client side of
 * its session (fs and terminals inside the directory, permission requests, nothing else), and the
 * ACP session itself. A session the process does not hold yet is loaded (`session/load`) when the
 * agent offers it, its replayed history kept out of the turn; where it does not, or the load
 * fails, a new session starts and the caller is told the agent starts without the earlier turns.
 * The permission mode becomes the agent's session mode (presets.ts) after every new or load.
 */
import type { Logger } from '../../ops/logger.js';
import type { ExitInfo } from '../claude/process.js';
import { FsGuard } from './client-fs.js';
import { Terminals } from './client-terminal.js';
import type { AcpCommand } from './command.js';
import type { AcpConnection } from './connection.js';
import type { AcpLaunch } from './launch.js';
import { type AcpLease, AcpProcesses } from './processes.js';
import {
  ACP_ERRORS,
  acpRequestError,
  type ClientCapabilities,
  type InitializeResponse,
  type LoadSessionResponse,
  methodNotFound,
  type NewSessionResponse,
  offersSteering,
  type ReadTextFileRequest,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionConfigOption,
  type SessionNotification,
  type WriteTextFileRequest,
} from './protocol.js';

export interface LinkHandlers {
  /** An update of this conversation's session, not a replay. */
  update(update: unknown): void;
  permission(params: RequestPermissionRequest): Promise<RequestPermissionResponse>;
  /** The process is gone (the connection has already failed its pending requests). */
  exit(conn: AcpConnection, info: ExitInfo): void;
  /** The session was made or loaded: its id, to be kept. */
  sessionId(sessionId: string): void;
}

/** The session is ready in a live process; `notice` when the agent starts without the earlier turns. */
export interface Opened {
  conn: AcpConnection;
  sessionId: string;
  notice?: string;
}

export class SessionLink {
  sessionId: string | undefined;
  private lease: AcpLease | undefined;
  /** Stops routing the session's traffic here (set once the session is made or loaded). */
  private unhost: (() => void) | undefined;
  /** The pool this link leases from: the launch's (shared), or one of its own (a process per conversation). */
  private readonly pool: AcpProcesses;
  private init: InitializeResponse | undefined;
  /** The process that holds the session (made or loaded there). */
  private holder: AcpConnection | undefined;
  /** Updates of the session are history being replayed (session/load), not a turn's. */
  private replaying = false;
  private guard: FsGuard | undefined;
  private terminals: Terminals | undefined;
  private opening: Promise<Opened> | undefined;

  constructor(
    private readonly launch: AcpLaunch,
    private readonly log: Logger,
    private readonly handlers: LinkHandlers,
  ) {
    this.sessionId = launch.sessionId;
    this.pool =
      launch.processes ??
      new AcpProcesses({
        logger: log,
        tracker: launch.tracker,
        markPrefix: launch.markPrefix,
        killGraceMs: launch.killGraceMs,
      });
  }

  /** The live process, if any. */
  connection(): AcpConnection | undefined {
    const conn = this.lease?.conn;
    return conn?.alive() ? conn : undefined;
  }

  /** Other conversations' sessions live in the same process. */
  shared(): boolean {
    return this.lease?.shared() ?? false;
  }

  /** What the running agent answered to initialize (undefined before its first start). */
  initialized(): InitializeResponse | undefined {
    return this.init;
  }

  /** Steering is offered by the agent that runs (or, before it ran, expected by its preset). */
  steering(): boolean {
    return this.init ? offersSteering(this.init) : (this.launch.preset?.steering ?? false);
  }

  /** Starts the process and makes or loads the session, as needed; concurrent callers share one attempt. */
  open(): Promise<Opened> {
    const conn = this.connection();
    if (conn && this.holder === conn && this.sessionId) return Promise.resolve({ conn, sessionId: this.sessionId });
    this.opening ??= this.openNow().finally(() => (this.opening = undefined));
    return this.opening;
  }

  /**
   * Ends this conversation's use of the process: the process ends with its last user (the reason recorded first).
   * The session stays loadable.
   */
  async close(reason: string): Promise<void> {
    this.terminals?.releaseAll();
    const lease = this.lease;
    this.lease = undefined;
    // A process that goes on serving others drops the session from its memory, where the agent offers that.
    const closable = this.init?.agentCapabilities?.sessionCapabilities?.close;
    if (lease?.shared() && closable && this.sessionId && lease.conn.alive())
      await lease.conn.request('session/close', { sessionId: this.sessionId }, 5_000).catch(() => undefined);
    this.unhost?.();
    await lease?.release(reason);
  }

  private async openNow(): Promise<Opened> {
    const conn = this.connection() ?? this.spawn();
    if (this.holder !== conn) this.unhost?.();
    this.init = await conn.ready;
    if (this.holder === conn && this.sessionId) return { conn, sessionId: this.sessionId };
    let notice: string | undefined;
    if (this.sessionId) {
      const loaded = await this.load(conn, this.sessionId);
      if (loaded.ok) return this.ready(conn, this.sessionId, loaded.res);
      notice = loaded.notice;
    }
    const res = await conn.request<NewSessionResponse>('session/new', { cwd: this.launch.cwd, mcpServers: [] });
    const opened = await this.ready(conn, res.sessionId, res);
    return notice ? { ...opened, notice } : opened;
  }

  private async load(
    conn: AcpConnection,
    sessionId: string,
  ): Promise<{ ok: true; res: LoadSessionResponse } | { ok: false; notice: string }> {
    const label = this.launch.label;
    if (!this.init?.agentCapabilities?.loadSession)
      return { ok: false, notice: `${label} cannot load a saved session: it starts without the earlier turns.` };
    this.replaying = true;
    // Hosted before the request: the replay comes before its answer.
    this.hostAs(sessionId);
    try {
      const res = await conn.request<LoadSessionResponse>('session/load', {
        sessionId,
        cwd: this.launch.cwd,
        mcpServers: [],
      });
      return { ok: true, res: res ?? {} };
    } catch (err) {
      if (!conn.alive()) throw err;
      const data = (err as { data?: unknown } | null)?.data;
      const detail = data ? `: ${JSON.stringify(data).slice(0, 200)}` : '';
      const why = `${err instanceof Error ? err.message : String(err)}${detail}`;
      this.log.warn({ sessionId, err: why }, 'acp: session/load failed; starting a new session');
      return {
        ok: false,
        notice: `${label} could not load the saved session (${why}): it starts without the earlier turns.`,
      };
    } finally {
      this.replaying = false;
    }
  }

  private async ready(
    conn: AcpConnection,
    sessionId: string,
    res: NewSessionResponse | LoadSessionResponse,
  ): Promise<Opened> {
    this.sessionId = sessionId;
    this.holder = conn;
    this.hostAs(sessionId);
    this.handlers.sessionId(sessionId);
    await this.applyMode(conn, sessionId, res);
    return { conn, sessionId };
  }

  /**
   * The permission mode as the agent's session mode and config options, where it offers them (presets.ts); the
   * model as its `model` config option, where it offers that value.
   */
  private async applyMode(conn: AcpConnection, sessionId: string, res: NewSessionResponse | LoadSessionResponse) {
    const choice = this.launch.preset?.modes[this.launch.permissionMode] ?? {};
    const modes = res.modes?.availableModes.map((m) => m.id) ?? [];
    if (choice.mode && modes.includes(choice.mode) && res.modes?.currentModeId !== choice.mode)
      await conn.request('session/set_mode', { sessionId, modeId: choice.mode });
    const options = new Map((res.configOptions ?? []).map((o) => [o.id, o]));
    const wanted = { ...choice.config, ...(this.launch.model ? { model: this.launch.model } : {}) };
    for (const [configId, value] of Object.entries(wanted)) {
      const option = options.get(configId);
      if (option && option.currentValue !== value && offersValue(option, value))
        await conn.request('session/set_config_option', { sessionId, configId, value });
    }
  }

  private command(): AcpCommand {
    const c = this.launch.command;
    return typeof c === 'function' ? c() : c;
  }

  /** What Rudder serves, declared in initialize: fs always, terminal/* only when agent.acp turns it on. */
  private capabilities(): ClientCapabilities {
    return { fs: { readTextFile: true, writeTextFile: true }, terminal: this.launch.terminal === true };
  }

  private spawn(): AcpConnection {
    this.guard ??= new FsGuard(this.launch.cwd);
    if (this.launch.terminal) this.terminals ??= new Terminals(this.guard, this.launch.cwd, this.launch.env);
    void this.lease?.release('the process is gone');
    const spec = {
      command: this.command(),
      cwd: this.launch.cwd,
      env: this.launch.env,
      clientCapabilities: this.capabilities(),
      initTimeoutMs: this.launch.initTimeoutMs,
    };
    const lease = this.pool.lease(spec, this.launch.conversationId, (conn, info) => {
      if (this.holder === conn) this.holder = undefined;
      // Nothing can release them any more.
      this.terminals?.releaseAll();
      this.handlers.exit(conn, info);
    });
    this.lease = lease;
    return lease.conn;
  }

  /** Routes the session's updates and requests in the process to this link. */
  private hostAs(sessionId: string): void {
    this.unhost?.();
    const conn = this.lease?.conn;
    this.unhost = this.lease?.host(sessionId, {
      update: (n) => this.onUpdate(conn, n),
      request: (method, params) => this.onRequest(method, params),
    });
  }

  private onUpdate(conn: AcpConnection | undefined, n: SessionNotification): void {
    if (conn !== this.lease?.conn || this.replaying || !n || n.sessionId !== this.sessionId) return;
    this.handlers.update(n.update);
  }

  private async onRequest(method: string, params: unknown): Promise<unknown> {
    const sessionId = (params as { sessionId?: unknown } | null)?.sessionId;
    if (sessionId !== undefined && sessionId !== this.sessionId)
      throw acpRequestError(ACP_ERRORS.resourceNotFound, `Rudder holds no session ${String(sessionId)} here.`);
    switch (method) {
      case 'session/request_permission':
        return this.handlers.permission(params as RequestPermissionRequest);
      case 'fs/read_text_file':
        return this.guard!.read(params as ReadTextFileRequest);
      case 'fs/write_text_file':
        return this.guard!.write(params as WriteTextFileRequest);
      default:
        if (this.terminals && method.startsWith('terminal/'))
          return this.terminals.handle(method, (params ?? {}) as Record<string, unknown>);
        this.log.debug({ method }, 'acp: a request Rudder does not serve refused');
        throw methodNotFound(method);
    }
  }
}

/** A select option that lists the value (flat or in groups), or a boolean one (the agent judges the value). */
function offersValue(option: SessionConfigOption, value: string): boolean {
  if (option.type !== 'select') return true;
  const flat = (items: unknown[]): unknown[] =>
    items.flatMap((i) => {
      const group = (i as { options?: unknown } | null)?.options;
      return Array.isArray(group) ? flat(group) : [(i as { value?: unknown } | null)?.value];
    });
  return flat(option.options as unknown[]).includes(value);
}
