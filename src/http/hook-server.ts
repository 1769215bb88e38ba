/**
 * The hooks' own listener (`hooks.listen`): a plain HTTP server that answers POST /hooks/<name> and nothing else, so
 * a tunnel or a reverse proxy can expose it to the internet while the page stays where it is. No Host check (a
 * tunnel's name is its own) and no token: each delivery is signed with its hook's secret. Every other path is a 404.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { GatewayApi } from '../gateway/api/api.js';
import type { Logger } from '../ops/logger.js';
import { asHttpError, HttpError, sendError } from './errors.js';
import { setSecurityHeaders } from './headers.js';
import { HOOKS_PREFIX, serveHook } from './hooks.js';
import { parseTarget } from './request.js';

export interface HookServerOptions {
  host: string;
  port: number;
  api: GatewayApi;
  logger: Logger;
}

export class HookServer {
  private server: http.Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly opts: HookServerOptions) {}

  async start(): Promise<void> {
    const server = http.createServer((req, res) => void this.handle(req, res));
    server.on('connection', (s) => (this.sockets.add(s), s.on('close', () => this.sockets.delete(s))));
    server.on('clientError', (_err, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
  }

  serving(): boolean {
    return this.server !== undefined;
  }

  address(): { host: string; port: number } {
    const a = this.server?.address() as AddressInfo | undefined;
    return { host: this.opts.host, port: a?.port ?? this.opts.port };
  }

  baseUrl(): string {
    const { host, port } = this.address();
    return `http://${host.includes(':') ? `[${host}]` : host}:${port}/${HOOKS_PREFIX}/`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
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
