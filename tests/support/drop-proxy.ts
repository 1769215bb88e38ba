/**
 * A forward HTTP proxy for the browser (chromium --proxy-server) that can drop every connection
 * and refuse new ones, like a phone losing its network, while the gateway itself keeps running.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface DropProxy {
  url: string;
  /** Requests the proxy forwarded, by path. */
  seen: string[];
  /** The Last-Event-ID each event-stream request carried, in order. */
  lastEventIds: Array<string | undefined>;
  /** Cuts every open connection; until resume(), new ones are reset at once. */
  drop(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startDropProxy(): Promise<DropProxy> {
  const clients = new Set<Socket>();
  const upstream = new Set<http.ClientRequest>();
  const seen: string[] = [];
  const lastEventIds: Array<string | undefined> = [];
  let down = false;
  const server = http.createServer((req, res) => {
    if (down) return void req.socket.destroy();
    const target = new URL(req.url ?? '/');
    seen.push(target.pathname);
    if (target.pathname.endsWith('/events')) lastEventIds.push(req.headers['last-event-id'] as string | undefined);
    const out = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: req.method,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.add(out);
    out.on('close', () => upstream.delete(out));
    out.on('error', () => req.socket.destroy());
    req.pipe(out);
  });
  server.on('connection', (s) => {
    if (down) return void s.destroy();
    clients.add(s);
    s.on('close', () => clients.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    lastEventIds,
    drop() {
      down = true;
      for (const s of clients) s.destroy();
      for (const u of upstream) u.destroy();
    },
    resume() {
      down = false;
    },
    async close() {
      for (const s of clients) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
