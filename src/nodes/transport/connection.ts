/**
 * A connection to NATS as the front or as one node: an nkey (the seed stays in memory and in its
 * 0600 file), TLS when the URL or the config asks for it, replies under the user's own inbox
 * prefix, and reconnection for ever (a restart of the server loses nothing: publishers resend,
 * consumers resume). Wrong credentials are a clear NATS_UNAVAILABLE, never a retry loop.
 */
import { connect, type NatsConnection, nkeyAuthenticator } from '@nats-io/transport-node';
import { type NatsServerConfig, natsHosts } from '../../config/nodes-schema.js';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import { inboxPrefix } from '../wire.js';

export interface ConnectOptions {
  url: string;
  seed: string;
  /** "front" or the node's name: its inbox prefix and its name in the server's view. */
  who: string;
  tls?: NatsServerConfig['tls'];
  /** The CA of the server's certificate as PEM text (a join token carries it), trusted as tls.ca is. */
  caPem?: string;
  log: Logger;
  /** How long the first connection may take. */
  timeoutMs?: number;
}

export async function connectNats(o: ConnectOptions): Promise<NatsConnection> {
  const hosts = natsHosts(o.url) ?? [];
  const useTls = !!o.tls || !!o.caPem || hosts.some((h) => h.tls);
  const servers = o.url.split(',').map((s) => s.trim().replace(/^tls:\/\//, 'nats://'));
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers,
      name: `rudder-${o.who}`,
      authenticator: nkeyAuthenticator(new TextEncoder().encode(o.seed)),
      inboxPrefix: inboxPrefix(o.who),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      pingInterval: 5_000,
      timeout: o.timeoutMs ?? 10_000,
      ...(useTls
        ? {
            tls: { caFile: o.tls?.ca, certFile: o.tls?.cert, keyFile: o.tls?.key, ...(o.caPem ? { ca: o.caPem } : {}) },
          }
        : {}),
    });
  } catch (err) {
    const why = (err as Error).message;
    throw new RudderError('NATS_UNAVAILABLE', `${o.url}: ${why}`, { url: o.url }, err);
  }
  void watchStatus(nc, o.log);
  return nc;
}

async function watchStatus(nc: NatsConnection, log: Logger): Promise<void> {
  for await (const s of nc.status()) {
    if (s.type === 'disconnect') log.warn({ server: s.server }, 'NATS connection lost; reconnecting');
    else if (s.type === 'reconnect') log.info({ server: s.server }, 'NATS connection back');
    else if (s.type === 'error') log.warn({ err: s.error?.message }, 'NATS error');
  }
}
