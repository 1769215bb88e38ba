/**
 * Config schema for agents on several machines (`nodes`): the NATS server the front and its nodes
 * meet on (a local nats-server child of the front, or an existing server), and how presence is
 * judged. Without a `nodes` section nothing of this runs: one process, no NATS.
 */
import { z } from 'zod';
import { isLoopbackHost } from '../security/hosts.js';

/** A node's name: used in subjects, consumer names and /nodes. */
export const nodeNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/,
    'must be 1-32 letters, digits, "_" or "-", starting with a letter or digit',
  );

/** The hosts of a NATS URL list ("nats://a:4222,tls://b:4222" or "a:4222"); undefined when one is not a URL. */
export function natsHosts(url: string): Array<{ host: string; tls: boolean }> | undefined {
  const out: Array<{ host: string; tls: boolean }> = [];
  for (const part of url.split(',').map((s) => s.trim())) {
    const withScheme = /^[a-z]+:\/\//i.test(part) ? part : `nats://${part}`;
    let u: URL;
    try {
      u = new URL(withScheme);
    } catch {
      return undefined;
    }
    if (!['nats:', 'tls:'].includes(u.protocol) || !u.hostname) return undefined;
    out.push({ host: u.hostname, tls: u.protocol === 'tls:' });
  }
  return out.length ? out : undefined;
}

/**
 * Why a connection to this URL would carry every message and credential in plain text across a network, or
 * undefined when it would not (TLS, loopback only, or plain text said out loud). The one rule of the config, of
 * `rudder node add --url`, of `rudder node join` on the token and of a node at start.
 */
export function plaintextProblem(url: string, o: { tls: boolean; allowPlaintext: boolean }): string | undefined {
  if (o.tls || o.allowPlaintext) return undefined;
  const plain = (natsHosts(url) ?? []).filter((h) => !h.tls && !isLoopbackHost(h.host));
  if (!plain.length) return undefined;
  return (
    `${plain.map((h) => h.host).join(', ')} is not a loopback address: every message and credential would ` +
    'cross the network in plain text. Use a tls:// URL (or set tls), or set allowPlaintext to true to mean it ' +
    '(a private network such as WireGuard or Tailscale)'
  );
}

/** TLS of a connection to an existing server: the files are PEM, read when connecting. */
const tlsSchema = z
  .object({
    /** The CA that signed the server's certificate (otherwise the system's). */
    ca: z.string().min(1).optional(),
    /** A client certificate and its key, when the server asks for one. */
    cert: z.string().min(1).optional(),
    key: z.string().min(1).optional(),
  })
  .strict();

/** An existing NATS server with JetStream. */
export const natsServerSchema = z
  .object({
    /** nats://host:port or tls://host:port (several, comma-separated, for a cluster). */
    url: z.string().refine((u) => natsHosts(u) !== undefined, 'must be nats://host:port or tls://host:port'),
    /** TLS settings; a tls:// URL uses TLS with the system's CAs even without them. */
    tls: tlsSchema.optional(),
    /** Plain text (nats://, no tls) to a non-loopback address: must be said out loud. */
    allowPlaintext: z.boolean().default(false),
  })
  .strict()
  .superRefine((s, ctx) => {
    const problem = plaintextProblem(s.url, { tls: !!s.tls, allowPlaintext: s.allowPlaintext });
    if (problem) ctx.addIssue({ code: 'custom', path: ['allowPlaintext'], message: problem });
  });

export const nodesSchema = z
  .object({
    /** "embedded": the front starts nats-server itself (loopback only); or an existing server. */
    nats: z.union([z.literal('embedded'), natsServerSchema]).default('embedded'),
    /** The embedded server's port (0: a free one, chosen at start). */
    embeddedPort: z.number().int().min(0).max(65535).default(4222),
    /** The embedded server's binary; otherwise nats-server on PATH, then /usr/sbin/nats-server. */
    natsServerBin: z.string().min(1).optional(),
    /** A node writes its heartbeat this often. */
    heartbeatSeconds: z.number().min(0.2).max(60).default(3),
    /** A node silent this long is lost: its conversations' messages are held until it is back. */
    lostAfterSeconds: z.number().min(0.5).max(3600).default(15),
    /** How long a message handed out by JetStream waits for its acknowledgement before it is handed out again. */
    ackWaitSeconds: z.number().min(1).max(3600).default(30),
  })
  .strict()
  .superRefine((n, ctx) => {
    if (n.lostAfterSeconds <= n.heartbeatSeconds * 2)
      ctx.addIssue({
        code: 'custom',
        path: ['lostAfterSeconds'],
        message: `must be more than twice heartbeatSeconds (${n.heartbeatSeconds}), or one late heartbeat loses a node`,
      });
  });

export type NodesConfig = z.infer<typeof nodesSchema>;
export type NatsServerConfig = z.infer<typeof natsServerSchema>;
