/**
 * Starting Rudder, above the gateway: the data dir's lock, the gateway built (gateway/gateway.ts), the
 * page's server over the gateway's API (http/server.ts, with the token from the data dir), then the
 * gateway opened: recovery, the page, the chat channels; then the webhooks' own listener (hooks.listen). One call
 * stops it all (gateway/shutdown.ts).
 * `rudder start` runs this in a process of its own (run.ts); tests and embedders call it directly.
 */
import type { BinaryCheck } from '../agents/common/binary-check.js';
import type { Channel } from '../channels/channel.js';
import { LISTEN_KEY, type ListenConfig } from '../config/hooks-schema.js';
import { buildGateway, type GatewayParts, openGateway } from '../gateway/gateway.js';
import type { Services } from '../gateway/services.js';
import { shutdown } from '../gateway/shutdown.js';
import { HookServer } from '../http/hook-server.js';
import { HttpServer } from '../http/server.js';
import { loadOrCreateToken } from '../http/token.js';
import { acquireLock, type DataDirLock } from '../ops/lock.js';
import { registerSecret } from '../ops/redact.js';

export interface GatewayOptions extends GatewayParts {
  /** Channels supplied by the caller (tests, embedding), started like the configured ones. */
  extraChannels?: Channel[];
  /** The data dir's lock, when the caller took it already (`rudder start` does, first thing). */
  lock?: DataDirLock;
  /** Aborts the wait for chat channels at startup (a signal arrived). */
  signal?: AbortSignal;
}

export interface RunningGateway {
  services: Services;
  /** The page's HTTP server (web.enabled). */
  web: HttpServer | undefined;
  /** The webhooks' own listener (hooks.listen): it answers /hooks/* and nothing else. */
  hooks: HookServer | undefined;
  /** The binaries of the agents the config runs on, checked at start: a missing or broken one is reported. */
  binaries: Promise<BinaryCheck[]>;
  stop(reason: string): Promise<void>;
}

export async function startGateway(opts: GatewayOptions): Promise<RunningGateway> {
  // One gateway per data dir, before anything in it is touched: a second start must not sweep
  // the first one's agents as orphans.
  const lock = opts.lock ?? acquireLock(opts.dataDir);
  try {
    return await startLocked(opts, lock);
  } catch (err) {
    if (!opts.lock) lock.release();
    throw err;
  }
}

async function startLocked(opts: GatewayOptions, lock: DataDirLock): Promise<RunningGateway> {
  const gateway = await buildGateway(opts);
  const web = pageServer(opts, gateway.services);
  await openGateway(gateway, { page: web, extraChannels: opts.extraChannels, signal: opts.signal });
  const hooks = await hookListener(opts, gateway.services).catch(async (err) => {
    await shutdown({ ...gateway, page: web, release: () => undefined }, 'the hooks listener could not start');
    throw err;
  });
  const release = () => {
    if (!opts.lock) lock.release();
  };
  let stopping: Promise<void> | undefined;
  const stopAll = async (reason: string) => {
    await hooks?.stop(); // no delivery is taken while the gateway drains
    await shutdown({ ...gateway, page: web, release }, reason);
  };
  const stop = (reason: string) => (stopping ??= stopAll(reason));
  return { services: gateway.services, web, hooks, binaries: gateway.binaries, stop };
}

/** The page's server over the gateway's narrow API (web.enabled); its token is a secret of the log's. */
function pageServer(opts: GatewayOptions, s: Services): HttpServer | undefined {
  const { web } = opts.config.current();
  if (!web.enabled) return undefined;
  const token = loadOrCreateToken(opts.dataDir);
  registerSecret(token);
  const { host, port, allowedHosts } = web;
  return new HttpServer({ host, port, allowedHosts, token, logger: opts.logger, api: s.api });
}

/** The webhooks' own listener (hooks.listen), started once the gateway takes messages. */
async function hookListener(opts: GatewayOptions, s: Services): Promise<HookServer | undefined> {
  const listen = opts.config.current().hooks[LISTEN_KEY] as ListenConfig | undefined;
  if (!listen) return undefined;
  const server = new HookServer({ host: listen.host, port: listen.port, api: s.api, logger: opts.logger });
  await server.start();
  opts.logger.info({ url: server.baseUrl() }, 'webhooks listening');
  return server;
}
