/**
 * `rudder node add <name>` on the front: a new nkey for the node (its public key kept here, its
 * seed only in the join token), the embedded server told to read its users again (or, for an
 * existing server, the `accounts` block to give it), and the node's consumer made when the
 * server can be reached, so the node can read its commands at once (else the front makes it when
 * it first hears the node's heartbeat).
 */
import { jetstreamManager } from '@nats-io/jetstream';
import type { Config } from '../config/schema.js';
import { RudderError } from '../errors.js';
import type { Logger } from '../ops/logger.js';
import { addNode, encodeJoinToken, frontSeed, publicKeyOf, readNodes } from './credentials.js';
import { connectNats } from './transport/connection.js';
import { embeddedPort, reloadServer, writeServerConfig } from './transport/embedded.js';
import { accountsBlock } from './transport/permissions.js';
import { ensureNodeConsumer } from './transport/streams.js';

export interface AddedNode {
  token: string;
  url: string;
  replaced: boolean;
  /** For an existing server: the account block its config needs (public keys only). */
  authorization?: string;
  /** Whether the node's consumer exists now (else the front makes it at its next start). */
  consumerReady: boolean;
  /** The embedded server runs and was told about the node. */
  reloaded: boolean;
}

export async function addNodeCredentials(
  dataDir: string,
  cfg: Config,
  name: string,
  log: Logger,
  url?: string,
): Promise<AddedNode> {
  const nodes = cfg.nodes;
  if (!nodes)
    throw new RudderError('CONFIG_INVALID', 'There is no nodes section in the config: add "nodes": {} first.');
  const added = addNode(dataDir, name);
  const embedded = nodes.nats === 'embedded';
  let reloaded = false;
  if (embedded) {
    writeServerConfig(dataDir);
    reloaded = reloadServer(dataDir);
  }
  const server = nodes.nats === 'embedded' ? undefined : nodes.nats;
  const port = embeddedPort(dataDir) ?? nodes.embeddedPort;
  const to = url ?? server?.url ?? `nats://127.0.0.1:${port}`;
  let consumerReady = false;
  // The server reloads its accounts after the signal; its JetStream answers again a moment later.
  const own = server?.url ?? `nats://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 5 && !consumerReady && (!embedded || reloaded); attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, 300 * attempt));
    try {
      const seed = frontSeed(dataDir);
      const nc = await connectNats({ url: own, seed, who: 'front', tls: server?.tls, log, timeoutMs: 3000 });
      try {
        await ensureNodeConsumer(await jetstreamManager(nc), name, { ackWaitMs: nodes.ackWaitSeconds * 1000 });
        consumerReady = true;
      } finally {
        await nc.close();
      }
    } catch (err) {
      log.debug({ err: (err as Error).message }, 'the node consumer is made when the front first hears of the node');
    }
  }
  return {
    token: encodeJoinToken({ name, url: to, seed: added.seed }),
    url: to,
    replaced: added.replaced,
    ...(embedded ? {} : { authorization: accountsBlock(publicKeyOf(frontSeed(dataDir)), readNodes(dataDir)) }),
    consumerReady,
    reloaded,
  };
}
