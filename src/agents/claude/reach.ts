/**
 * Rudder's own look at the way to the model endpoint, for when the CLI reports a connection
 * failure without its cause (an api_retry frame says only `error: "unknown"`): resolve the name,
 * then open a TCP connection, to the proxy when one applies. No request is sent.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import { type ApiEndpoint, hostPort } from './endpoint.js';

/** The error code of the first step that fails (ENOTFOUND, ECONNREFUSED, ETIMEDOUT…), or undefined when both work. */
export async function reachCode(ep: ApiEndpoint, timeoutMs = 3000): Promise<string | undefined> {
  const { host, port } = hostPort(ep.proxy ?? ep.url);
  try {
    await dns.lookup(host);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'ENOTFOUND';
  }
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (code: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(code);
    };
    const timer = setTimeout(() => done('ETIMEDOUT'), timeoutMs);
    socket.once('connect', () => done(undefined));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? 'ECONNRESET'));
  });
}
