/**
 * One JSON-RPC connection to an app-server: requests matched to their responses by id, the
 * server's notifications and requests handed on, and every pending request failed when the
 * connection closes, so no caller waits on a dead process.
 */
import { RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import {
  type ClientMethod,
  encodeLine,
  type ParamsOf,
  parseMessage,
  type RequestId,
  type ResultOf,
  type RpcError,
} from '../protocol/index.js';

/** The server answered a request with an error. */
export class CodexRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(
    readonly method: string,
    error: RpcError,
  ) {
    super(`${method}: ${error.message}`);
    this.name = 'CodexRpcError';
    this.code = error.code;
    this.data = error.data;
  }
}

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export interface RpcHandlers {
  notification(method: string, params: unknown): void;
  request(id: RequestId, method: string, params: unknown): void;
}

/** A request with no answer in this long means the server is wedged: the caller is told, never left waiting. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

export class RpcConnection {
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private closedBy: Error | undefined;

  constructor(
    private readonly write: (line: string) => void,
    private readonly handlers: RpcHandlers,
    private readonly log: Logger,
  ) {}

  request<M extends ClientMethod>(
    method: M,
    params: ParamsOf<M>,
    timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
  ): Promise<ResultOf<M>> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    const id = this.nextId++;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RudderError('CODEX_PROTOCOL', `No answer to ${method} within ${Math.round(timeoutMs / 1000)} s.`));
      }, timeoutMs);
      timer.unref();
      this.pending.set(id, { method, resolve: resolve as (r: unknown) => void, reject, timer });
      try {
        this.write(encodeLine({ id, method, params }));
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(err as Error);
      }
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.closedBy) return;
    this.write(encodeLine(params === undefined ? { method } : { method, params }));
  }

  /** Answers a server request; false when the connection is gone. */
  respond(id: RequestId, result: unknown): boolean {
    return this.send(() => encodeLine({ id, result }));
  }

  respondError(id: RequestId, code: number, message: string): boolean {
    return this.send(() => encodeLine({ id, error: { code, message } }));
  }

  /** One line of the server's stdout. */
  handleLine(line: string): void {
    const m = parseMessage(line);
    switch (m.kind) {
      case 'blank':
        return;
      case 'malformed':
        this.log.warn({ reason: m.reason, excerpt: m.excerpt }, 'codex app-server: malformed line skipped');
        return;
      case 'response':
      case 'error-response': {
        const p = this.pending.get(m.id);
        if (!p) {
          this.log.debug({ id: m.id }, 'codex app-server: a response to no pending request');
          return;
        }
        this.pending.delete(m.id);
        clearTimeout(p.timer);
        if (m.kind === 'response') p.resolve(m.result);
        else p.reject(new CodexRpcError(p.method, m.error));
        return;
      }
      case 'notification':
        this.handlers.notification(m.method, m.params);
        return;
      case 'request':
        this.handlers.request(m.id, m.method, m.params);
        return;
    }
  }

  /** Fails every pending request (and every later one) with the reason the connection ended. */
  close(reason: Error): void {
    this.closedBy ??= reason;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(this.closedBy);
    }
  }

  private send(line: () => string): boolean {
    if (this.closedBy) return false;
    try {
      this.write(line());
      return true;
    } catch {
      return false;
    }
  }
}
