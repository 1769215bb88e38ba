/**
 * A listening HTTP server's life, one for the page's server (server.ts) and the hooks' own listener
 * (hook-server.ts): it listens on its address, keeps its sockets so that stop closes at once (an open event
 * stream or keep-alive connection would hold close() up), and says where it listens.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';

const closeSocket = (socket: Duplex): void => void socket.destroy();

export class Listener {
  private server: http.Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** Listens; `onClientError` answers a request Node cannot parse (by default its socket is closed). */
  async start(handle: http.RequestListener, onClientError: (socket: Duplex) => void = closeSocket): Promise<void> {
    const server = http.createServer(handle);
    server.on('connection', (s) => (this.sockets.add(s), s.on('close', () => this.sockets.delete(s))));
    server.on('clientError', (_err, socket) => onClientError(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host, () => {
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
    return { host: this.host, port: a?.port ?? this.port };
  }

  /** `http://<host>:<port>/`, an IPv6 host in brackets. */
  origin(): string {
    const { host, port } = this.address();
    return `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
}
