/**
 * The HTTP server: the web app and the API on the configured address (127.0.0.1 by default). It
 * serves the gateway's narrow API (gateway/api/api.ts) through the route table, after the checks of
 * request.ts; it knows nothing of lanes, agents or channels.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { GatewayApi } from '../gateway/api/api.js';
import type { Logger } from '../ops/logger.js';
import { HostRules } from './hosts.js';
import { handleRequest } from './request.js';
import { StaticFiles } from './static.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  token: string;
  logger: Logger;
  api: GatewayApi;
  /** Further Host names (a reverse proxy's), "name" for any port or "name:port". */
  allowedHosts?: string[];
  /** The web app's build (default dist/web). */
  appDir?: string;
}

export class HttpServer {
  private server: http.Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly streams = new Set<http.ServerResponse>();
  private hosts: HostRules | undefined;
  private readonly files: StaticFiles;

  constructor(private readonly opts: HttpServerOptions) {
    this.files = new StaticFiles(opts.appDir);
  }

  async start(): Promise<void> {
    const server = http.createServer((req, res) => void this.handle(req, res));
    server.on('connection', (s) => (this.sockets.add(s), s.on('close', () => this.sockets.delete(s))));
    // A request Node cannot parse (a control character in the path, a bad header) is a 400 too.
    server.on('clientError', (_err, socket) => {
      if (socket.writable && !socket.destroyed)
        socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      else socket.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.hosts = new HostRules(this.address(), this.opts.allowedHosts);
  }

  /** Serving now (the web channel's replies are its events, so they are delivered while it is). */
  serving(): boolean {
    return this.server !== undefined;
  }

  address(): { host: string; port: number } {
    const a = this.server?.address() as AddressInfo | undefined;
    return { host: this.opts.host, port: a?.port ?? this.opts.port };
  }

  /** The page's address without the token: the one to log. */
  baseUrl(): string {
    const { host, port } = this.address();
    return `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
  }

  /** The page's address with the token, as printed at startup (on stdout, never in the log). */
  url(): string {
    return `${this.baseUrl()}#token=${this.opts.token}`;
  }

  /** Event streams open now. */
  openStreams(): number {
    return this.streams.size;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!this.hosts) return void res.writeHead(503).end();
    const { token, logger, api } = this.opts;
    await handleRequest({ token, hosts: this.hosts, files: this.files, api, logger, streams: this.streams }, req, res);
  }
}
