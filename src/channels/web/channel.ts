/**
 * The built-in web channel: the page and the HTTP API on 127.0.0.1, for a fresh install with no
 * chat tokens. Delivery to the page is the 'reply' event itself (logged once per outbox row and
 * streamed over SSE), so send() has nothing left to do; acks are bus events too.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayCore } from '../../gateway/core.js';
import type { Logger } from '../../ops/logger.js';
import type { AckKind, Channel, ChannelStatus, InboundSink, MessageRef, OutboundReply } from '../channel.js';
import { handleApi } from './api.js';
import { HttpError, sendError, sendJson } from './http.js';
import { StaticFiles } from './static.js';
import { tokenMatches } from './token.js';

export interface WebChannelOptions {
  host: string;
  port: number;
  token: string;
  logger: Logger;
  /** The web app's build (default dist/web). */
  appDir?: string;
}

export class WebChannel implements Channel {
  readonly name = 'web';
  private server: http.Server | undefined;
  private state: ChannelStatus['state'] = 'stopped';
  private core: GatewayCore | undefined;
  private readonly sockets = new Set<import('node:net').Socket>();
  private readonly files: StaticFiles;

  constructor(private readonly opts: WebChannelOptions) {
    this.files = new StaticFiles(opts.appDir);
  }

  /** The web channel needs the gateway itself (the API reads status and the event log). */
  bind(core: GatewayCore): void {
    this.core = core;
  }

  async start(_sink: InboundSink): Promise<void> {
    this.state = 'starting';
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
    this.state = 'connected';
  }

  address(): { host: string; port: number } {
    const a = this.server?.address() as AddressInfo | undefined;
    return { host: this.opts.host, port: a?.port ?? this.opts.port };
  }

  /** The page's address with the token, as printed at startup. */
  url(): string {
    const { host, port } = this.address();
    return `http://${host.includes(':') ? `[${host}]` : host}:${port}/#token=${this.opts.token}`;
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }

  async send(_reply: OutboundReply, _to: MessageRef): Promise<void> {
    if (this.state !== 'connected') throw new Error('the web channel is not running');
  }

  async ack(_to: MessageRef, _kind: AckKind): Promise<void> {
    // The page shows acknowledgements from the 'ack' events on the bus.
  }

  status(): ChannelStatus {
    return { name: this.name, state: this.state, detail: this.server ? `http://${this.opts.host}:${this.address().port}` : undefined };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === '/healthz') return sendJson(res, 200, { ok: true });
      // Everything outside /api is the web app's files (index.html at /).
      if (!url.pathname.startsWith('/api/')) return this.files.serve(req, res, url.pathname);
      const auth = req.headers.authorization;
      const given = auth?.startsWith('Bearer ') ? auth.slice(7).trim() : url.searchParams.get('token') ?? undefined;
      if (!tokenMatches(given, this.opts.token)) throw new HttpError(401, 'UNAUTHORIZED', 'A valid bearer token is required: Authorization: Bearer <token> (it is in web-token in the data dir).');
      if (!this.core) throw new HttpError(503, 'NOT_FOUND', 'The gateway is starting.');
      await handleApi(this.core, req, res, url);
    } catch (err) {
      if (err instanceof HttpError) return sendError(res, err);
      this.opts.logger.error({ err, url: req.url }, 'web: request failed');
      if (!res.headersSent) sendError(res, new HttpError(500, 'BAD_REQUEST', 'Internal error; see the gateway log.'));
      else res.end();
    }
  }
}
