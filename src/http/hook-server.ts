/**
 * The hooks' own listener (`hooks.listen`): a plain HTTP server that answers POST /hooks/<name> and nothing else, so
 * a tunnel or a reverse proxy can expose it to the internet while the page stays where it is. No Host check (a
 * tunnel's name is its own) and no token: each delivery is signed with its hook's secret. Every other path is a 404.
 */
import type http from 'node:http';
import type { GatewayApi } from '../gateway/api/api.js';
import type { Logger } from '../ops/logger.js';
import { asHttpError, HttpError, sendError } from './errors.js';
import { setSecurityHeaders } from './headers.js';
import { HOOKS_PREFIX, serveHook } from './hooks.js';
import { Listener } from './listener.js';
import { parseTarget } from './request.js';

export interface HookServerOptions {
  host: string;
  port: number;
  api: GatewayApi;
  logger: Logger;
}

export class HookServer {
  private readonly listener: Listener;

  constructor(private readonly opts: HookServerOptions) {
    this.listener = new Listener(opts.host, opts.port);
  }

  start(): Promise<void> {
    return this.listener.start((req, res) => void this.handle(req, res));
  }

  serving(): boolean {
    return this.listener.serving();
  }

  address(): { host: string; port: number } {
    return this.listener.address();
  }

  baseUrl(): string {
    return `${this.listener.origin()}${HOOKS_PREFIX}/`;
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    setSecurityHeaders(res);
    try {
      const target = parseTarget(req.url);
      if (target.segments[0] !== HOOKS_PREFIX) throw new HttpError('NOT_FOUND', 'This listener serves /hooks/ only.');
      await serveHook(this.opts.api, req, res, target, this.opts.logger);
    } catch (err) {
      const known = asHttpError(err);
      if (known) return sendError(res, known);
      this.opts.logger.error({ err }, 'hooks: request failed');
      sendError(res, new HttpError('INTERNAL_ERROR', 'Internal error; see the gateway log.'));
    }
  }
}
