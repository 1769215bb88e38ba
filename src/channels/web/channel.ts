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
import { HostRules } from './hosts.js';
import { handleRequest } from './request.js';
import { StaticFiles } from './static.js';

export interface WebChannelOptions {
  host: string;
  port: number;
  token: string;
  logger: Logger;
  /** Further Host names (a reverse proxy's), "name" for any port or "name:port". */
  allowedHosts?: string[];
  /** The web app's build (default dist/web). */
  appDir?: string;
}

export class WebChannel implements Channel {
  readonly name = 'web';
  private server: http.Server | undefined;
  private state: ChannelStatus['state'] = 'stopped';
  private core: GatewayCore | undefined;
  private readonly sockets = new Set<import('node:net').Socket>();
  private hosts: HostRules | undefined;
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
    this.state = 'connected';
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
    return {
      name: this.name,
      state: this.state,
      detail: this.server ? `http://${this.opts.host}:${this.address().port}` : undefined,
    };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!this.hosts) return void res.writeHead(503).end();
    await handleRequest(
      { token: this.opts.token, hosts: this.hosts, files: this.files, core: this.core, logger: this.opts.logger },
      req,
      res,
    );
  }
}
