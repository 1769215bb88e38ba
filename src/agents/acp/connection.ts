/**
 * One ACP agent process and its connection: spawned in its own process group with the allow-listed
 * environment and the orphan mark (agents/claude/process.ts: stderr ring, kill reason first, group
 * SIGTERM -> SIGKILL, leftovers killed at exit), the SDK's client over its stdio, and `initialize`.
 * Teardown is in one place: the process's exit closes the connection with the typed reason, so every
 * pending request fails with it and no caller waits on a dead process.
 *
 * Ordering: the agent's stdout is read line by line here. `session/update` notifications are handed
 * to `onUpdate` synchronously, in line order, and never to the SDK, so every update the agent wrote
 * before a response is applied before that response's caller resumes (the SDK would run them
 * asynchronously). Everything else (responses, requests from the agent) goes through the SDK.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import { AgentProcess, type ExitInfo, type ProcessTracker } from '../claude/process.js';
import type { AcpCommand } from './command.js';
import { describeAcpExit, type ExitWhy } from './exit.js';
import {
  acpSdk,
  CLIENT_INFO,
  type ClientCapabilities,
  type InitializeResponse,
  type SessionNotification,
} from './protocol.js';

/** What the agent may ask of Rudder; a method without a handler is refused (method not found). */
export interface ClientHandlers {
  onUpdate(n: SessionNotification): void;
  onRequest(method: string, params: unknown): Promise<unknown>;
}

export interface AcpConnectionSpec {
  command: AcpCommand;
  /** The conversation's directory: the process's working directory. */
  cwd: string;
  env: Record<string, string>;
  logger: Logger;
  /** For logs and the process tracker: the conversation. */
  label: string;
  tracker?: ProcessTracker;
  markPrefix?: string;
  clientCapabilities: ClientCapabilities;
  handlers: ClientHandlers;
  /** How long spawn plus initialize may take. Default 60 s (Gemini and Copilot take 5-8 s here). */
  initTimeoutMs?: number;
}

/** A request with no answer in this long means the agent is wedged. session/prompt has no limit of its own. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
const DEFAULT_INIT_TIMEOUT_MS = 60_000;

type Message = acp.AnyMessage;

export class AcpConnection {
  readonly pid: number;
  /** initialize's answer; rejects when the agent exits or does not answer in time. */
  readonly ready: Promise<InitializeResponse>;
  readonly exited: Promise<ExitInfo>;
  private readonly proc: AgentProcess;
  private readonly conn: acp.ClientConnection;
  private readonly log: Logger;
  private started = false;
  private why: ExitWhy | undefined;

  private constructor(private readonly spec: AcpConnectionSpec) {
    this.log = spec.logger.child({ acp: spec.command.label });
    this.proc = AgentProcess.spawn({
      bin: spec.command.bin,
      args: spec.command.args,
      cwd: spec.cwd,
      env: spec.env,
      logger: this.log,
      label: spec.label,
      tracker: spec.tracker,
      markPrefix: spec.markPrefix,
      missingBinaryCode: 'ACP_COMMAND_MISSING',
    });
    this.pid = this.proc.pid;
    const { stream, close } = this.stream();
    this.conn = acpSdk()
      .client({ name: CLIENT_INFO.name })
      .onNotification('*', ({ method }) => this.log.debug({ method }, 'acp: notification ignored'))
      .onRequest('*', ({ method, params }) => spec.handlers.onRequest(method, params))
      .connect(stream);
    this.exited = this.proc.exited.then((info) => {
      this.why = describeAcpExit(info, this.proc.stderrTail(), {
        label: spec.command.label,
        command: [spec.command.bin, ...spec.command.args].join(' '),
        started: this.started,
      });
      this.log[info.reason ? 'info' : 'warn'](
        { pid: this.pid, exitCode: info.code, signal: info.signal, reason: info.reason },
        'acp agent exited',
      );
      this.conn.close(this.exitError());
      close();
      return info;
    });
    this.ready = this.initialize();
    // A caller that never awaits ready must not trigger an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  /** Spawns the agent; a missing command throws at once, other failures reject `ready`. */
  static start(spec: AcpConnectionSpec): AcpConnection {
    return new AcpConnection(spec);
  }

  /** The agent as people read it. */
  get label(): string {
    return this.spec.command.label;
  }

  alive(): boolean {
    return this.proc.alive();
  }

  stderrTail(): string[] {
    return this.proc.stderrTail();
  }

  /** The typed reason the process is gone, once it is. */
  exitError(context: Record<string, unknown> = {}): RudderError {
    const why = this.why ?? { code: 'AGENT_CRASHED' as const, detail: `${this.spec.command.label} is gone.` };
    return new RudderError(why.code, why.detail, {
      conversationId: this.spec.label,
      pid: this.pid,
      stderr: this.proc.stderrTail().slice(-5),
      ...context,
    });
  }

  /** A request after initialize; rejects with the agent's JSON-RPC error, or the exit's typed reason. */
  async request<T>(method: string, params: unknown, timeoutMs: number | null = DEFAULT_REQUEST_TIMEOUT_MS): Promise<T> {
    await this.ready;
    return this.send<T>(method, params, timeoutMs);
  }

  notify(method: string, params: unknown): void {
    if (!this.alive()) return;
    this.conn.agent
      .notify(method, params)
      .catch((err: Error) => this.log.debug({ err: err.message, method }, 'acp: notify failed'));
  }

  /** Records why, closes stdin (an idle agent exits by itself), then kills the group after waitMs. */
  end(reason: string, waitMs: number, graceMs: number): Promise<ExitInfo> {
    return this.proc.end(reason, waitMs, graceMs);
  }

  /** Records why, then SIGTERM to the group, SIGKILL after graceMs. */
  kill(reason: string, graceMs: number): Promise<ExitInfo> {
    return this.proc.kill(reason, graceMs);
  }

  private async initialize(): Promise<InitializeResponse> {
    const timeout = this.spec.initTimeoutMs ?? DEFAULT_INIT_TIMEOUT_MS;
    const init = await this.send<InitializeResponse>(
      'initialize',
      {
        protocolVersion: acpSdk().PROTOCOL_VERSION,
        clientCapabilities: this.spec.clientCapabilities,
        clientInfo: CLIENT_INFO,
      },
      timeout,
    ).catch((err: unknown) => {
      if (err instanceof RudderError && err.code !== 'ACP_START_FAILED' && this.alive()) {
        void this.kill(`no answer to initialize within ${Math.round(timeout / 1000)} s`, 2_000);
        throw new RudderError('ACP_START_FAILED', err.message, { conversationId: this.spec.label, pid: this.pid });
      }
      throw err;
    });
    this.started = true;
    this.log.info(
      { pid: this.pid, agent: init.agentInfo?.name, version: init.agentInfo?.version, protocol: init.protocolVersion },
      'acp agent ready',
    );
    return init;
  }

  private send<T>(method: string, params: unknown, timeoutMs: number | null): Promise<T> {
    if (!this.alive()) return this.exited.then(() => Promise.reject(this.exitError()));
    const answer = this.conn.agent.request<T>(method, params);
    if (timeoutMs === null) return answer;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RudderError('AGENT_TURN_FAILED', `${this.spec.command.label}: no answer to ${method}.`)),
        timeoutMs,
      );
      timer.unref();
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }

  /** The connection's message stream over the process's stdio, with session/update applied in line order. */
  private stream(): { stream: acp.Stream; close: () => void } {
    let reader!: ReadableStreamDefaultController<Message>;
    let open = true;
    const readable = new ReadableStream<Message>({ start: (c) => void (reader = c) });
    this.proc.onLine((line) => {
      if (!open || !line.trim()) return;
      let msg: Message;
      try {
        msg = JSON.parse(line) as Message;
      } catch {
        this.log.warn({ excerpt: line.slice(0, 200) }, 'acp: a line that is not JSON skipped');
        return;
      }
      // Applied here and not handed to the SDK, whose session router would print a malformed one to stderr.
      if (msg && typeof msg === 'object' && 'method' in msg && !('id' in msg) && msg.method === 'session/update') {
        try {
          this.spec.handlers.onUpdate(msg.params as SessionNotification);
        } catch (err) {
          this.log.error({ err }, 'acp: error while applying an update');
        }
        return;
      }
      try {
        reader.enqueue(msg);
      } catch {
        open = false; // the SDK closed the connection: nothing more is read
      }
    });
    const writable = new WritableStream<Message>({
      write: (msg) => this.proc.write(`${JSON.stringify(msg)}\n`),
    });
    const close = () => {
      if (!open) return;
      open = false;
      try {
        reader.close();
      } catch {
        // The SDK cancelled its reader already (it closed the connection first).
      }
    };
    return { stream: { readable, writable }, close };
  }
}
