/**
 * `rudder node add <name>` on the front: a new nkey for the node (its public key kept here, its
 * seed only in the join token), the embedded server told to read its users again (or, for an
 * existing server, the `accounts` block to give it), and the node's consumer made when the
 * server can be reached, so the node can read its commands at once (else the front makes it when
 * it first hears the node's heartbeat).
 */
import fs from 'node:fs';
import { jetstreamManager } from '@nats-io/jetstream';
import { type NatsServerConfig, natsHosts, plaintextProblem } from '../config/nodes-schema.js';
import type { Config } from '../config/schema.js';
import { RudderError } from '../errors.js';
import type { Logger } from '../ops/logger.js';
import {
  addNode,
  checkJoinUrl,
  encodeJoinToken,
  frontSeed,
  type JoinToken,
  publicKeyOf,
  readNodes,
} from './credentials.js';
import { connectNats } from './transport/connection.js';
import { embeddedPort, reloadServer, writeServerConfig } from './transport/embedded.js';
import { accountsBlock } from './transport/permissions.js';
import { ensureNodeConsumer } from './transport/streams.js';

export interface AddedNode {
  token: string;
  url: string;
  /** The node connects with TLS (the token's URL is tls://); and trusts the CA the token carries. */
  tls: boolean;
  ca: boolean;
  replaced: boolean;
  /** For an existing server: the account block its config needs (public keys only). */
  authorization?: string;
  /** Whether the node's consumer exists now (else the front makes it at its next start). */
  consumerReady: boolean;
  /** The embedded server runs and was told about the node. */
  reloaded: boolean;
}

export interface AddOptions {
  /** The URL the node reaches the server at, when not the configured one (`--url`). */
  url?: string;
  /** Plain text off loopback is meant (`--allow-plaintext`), as the config's allowPlaintext says it. */
  allowPlaintext?: boolean;
}

export async function addNodeCredentials(
  dataDir: string,
  cfg: Config,
  name: string,
  log: Logger,
  opts: AddOptions = {},
): Promise<AddedNode> {
  const nodes = cfg.nodes;
  if (!nodes)
    throw new RudderError('CONFIG_INVALID', 'There is no nodes section in the config: add "nodes": {} first.');
  const server = nodes.nats === 'embedded' ? undefined : nodes.nats;
  const port = embeddedPort(dataDir) ?? nodes.embeddedPort;
  const join = joinServer(opts.url ?? server?.url ?? `nats://127.0.0.1:${port}`, server, opts);
  checkJoinUrl(join);
  const added = addNode(dataDir, name);
  const embedded = nodes.nats === 'embedded';
  let reloaded = false;
  if (embedded) {
    writeServerConfig(dataDir);
    reloaded = reloadServer(dataDir);
  }
  const own = { url: server?.url ?? `nats://127.0.0.1:${port}`, tls: server?.tls };
  const consumerReady =
    embedded && !reloaded ? false : await makeConsumer(dataDir, own, name, nodes.ackWaitSeconds, log);
  return {
    token: encodeJoinToken({ name, ...join, seed: added.seed }),
    url: join.url,
    tls: !!natsHosts(join.url)?.every((h) => h.tls),
    ca: !!join.ca,
    replaced: added.replaced,
    ...(embedded ? {} : { authorization: accountsBlock(publicKeyOf(frontSeed(dataDir)), readNodes(dataDir)) }),
    consumerReady,
    reloaded,
  };
}

/** The node's consumer, on the front's own way to its server; false when the server cannot be reached now. */
async function makeConsumer(
  dataDir: string,
  server: { url: string; tls?: NatsServerConfig['tls'] },
  name: string,
  ackWaitSeconds: number,
  log: Logger,
): Promise<boolean> {
  // The server reloads its accounts after the signal; its JetStream answers again a moment later.
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, 300 * attempt));
    try {
      const seed = frontSeed(dataDir);
      const nc = await connectNats({ ...server, seed, who: 'front', log, timeoutMs: 3000 });
      try {
        await ensureNodeConsumer(await jetstreamManager(nc), name, { ackWaitMs: ackWaitSeconds * 1000 });
        return true;
      } finally {
        await nc.close();
      }
    } catch (err) {
      log.debug({ err: (err as Error).message }, 'the node consumer is made when the front first hears of the node');
    }
  }
  return false;
}

/**
 * What the token says of the server: when the front's server speaks TLS (a tls:// URL or a tls block), the node's
 * URL is tls:// whatever scheme it was given in, with the CA the front trusts (a public certificate); plain text
 * off loopback only as the front's config or `--allow-plaintext` says it.
 */
function joinServer(
  url: string,
  server: NatsServerConfig | undefined,
  opts: AddOptions,
): Pick<JoinToken, 'url' | 'ca' | 'allowPlaintext'> {
  const tls = !!server && (!!server.tls || !!natsHosts(server.url)?.some((h) => h.tls));
  if (!tls) {
    const plain = !!opts.allowPlaintext || !!server?.allowPlaintext;
    return {
      url,
      ...(plain && plaintextProblem(url, { tls: false, allowPlaintext: false }) ? { allowPlaintext: true } : {}),
    };
  }
  const tlsUrl = url
    .split(',')
    .map((part) => `tls://${part.trim().replace(/^[a-z]+:\/\//i, '')}`)
    .join(',');
  return { url: tlsUrl, ...(server?.tls?.ca ? { ca: readCa(server.tls.ca) } : {}) };
}

function readCa(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new RudderError('CONFIG_INVALID', `nodes.nats.tls.ca: ${(err as Error).message}.`, {}, err);
  }
}
