/**
 * The HTTP server: the web app and the API on the configured address (127.0.0.1 by default). It
 * serves the gateway's narrow API (gateway/api/api.ts) through the route table, after the checks of
 * request.ts; it knows nothing of lanes, agents or channels.
 */
import type http from 'node:http';
import type { GatewayApi } from '../gateway/api/api.js';
import type { Logger } from '../ops/logger.js';
import { HostRules } from './hosts.js';
import { Listener } from './listener.js';
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
  private readonly listener: Listener;
  private readonly streams = new Set<http.ServerResponse>();
  private hosts: HostRules | undefined;
  private readonly files: StaticFiles;

  constructor(private readonly opts: HttpServerOptions) {
    this.files = new StaticFiles(opts.appDir);
    this.listener = new Listener(opts.host, opts.port);
  }

  async start(): Promise<void> {
    // A request Node cannot parse (a control character in the path, a bad header) is a 400 too.
    await this.listener.start(
      (req, res) => void this.handle(req, res),
      (socket) => {
        if (socket.writable && !socket.destroyed)
          socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
        else socket.destroy();
      },
    );
    this.hosts = new HostRules(this.address(), this.opts.allowedHosts);
  }

  /** Serving now (the web channel's replies are its events, so they are delivered while it is). */
  serving(): boolean {
    return this.listener.serving();
  }

  address(): { host: string; port: number } {
    return this.listener.address();
  }

  /** The page's address without the token: the one to log. */
  baseUrl(): string {
    return this.listener.origin();
  }

  /** The page's address with the token, as printed at startup (on stdout, never in the log). */
  url(): string {
    return `${this.baseUrl()}#token=${this.opts.token}`;
  }

  /** Event streams open now. */
  openStreams(): number {
    return this.streams.size;
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!this.hosts) return void res.writeHead(503).end();
    const { token, logger, api } = this.opts;
    await handleRequest({ token, hosts: this.hosts, files: this.files, api, logger, streams: this.streams }, req, res);
  }
}
