/**
 * The gateway, wired: the table of contents of the system. One call starts it (the store, the
 * agents' launches, the services, recovery, the page's server, the chat channels); one call stops
 * it (shutdown.ts).
 */
import type https from 'node:https';
import path from 'node:path';
import type { BinaryCheck } from '../agents/common/binary-check.js';
import { killOrphans } from '../agents/common/leftovers.js';
import { AgentLaunches } from '../agents/launch.js';
import type { SessionFactory } from '../agents/pool.js';
import type { Channel } from '../channels/channel.js';
import { loadOrCreateVapidKeys } from '../channels/push/keys.js';
import { createChannels } from '../channels/registry.js';
import { WebChannel } from '../channels/web/channel.js';
import { checkProjects, type LiveConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { HttpServer } from '../http/server.js';
import { loadOrCreateToken } from '../http/token.js';
import type { NodesFront } from '../nodes/front/front.js';
import { acquireLock, type DataDirLock } from '../ops/lock.js';
import type { Logger } from '../ops/logger.js';
import { memAvailableBytes } from '../ops/proc.js';
import { registerSecret } from '../ops/redact.js';
import { Projects } from '../projects/service.js';
import { Store } from '../store/store.js';
import { recoverOpenMessages } from './recovery.js';
import { buildServices, type Services } from './services.js';
import { shutdown, undoStart } from './shutdown.js';

export interface GatewayOptions {
  dataDir: string;
  config: LiveConfig;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** Channels supplied by the caller (tests, embedding), started like the configured ones. */
  extraChannels?: Channel[];
  /** The data dir's lock, when the caller took it already (`rudder start` does, first thing). */
  lock?: DataDirLock;
  /** Aborts the wait for chat channels at startup (a signal arrived). */
  signal?: AbortSignal;
  /** Replaces the agent session factory (benchmarks measure the gateway with an in-process fake agent). */
  sessionFactory?: (launches: AgentLaunches) => SessionFactory;
  /** The HTTPS agent pushes go through (a test's, trusting its fake push service's certificate). */
  pushAgent?: https.Agent;
}

export interface RunningGateway {
  services: Services;
  /** The page's HTTP server (web.enabled). */
  web: HttpServer | undefined;
  /** The binaries of the agents the config runs on, checked at start: a missing or broken one is reported. */
  binaries: Promise<BinaryCheck[]>;
  stop(reason: string): Promise<void>;
}

const EVENT_RETENTION_MS = 7 * 24 * 3600_000;

/** Tokens and keys from the config never reach the log, whatever a library puts in an error. */
function registerConfigSecrets(cfg: Config): void {
  const ch = cfg.channels;
  const secrets = [ch.telegram?.token, ch.telegram?.webhook?.secretToken, ch.discord?.token, ch.slack?.botToken];
  for (const v of [...secrets, ch.slack?.appToken, cfg.fallback?.apiKey]) registerSecret(v?.trim());
  for (const [k, v] of Object.entries(cfg.agent.env)) if (/KEY|TOKEN|SECRET|PASSWORD/i.test(k)) registerSecret(v);
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
  const { config, dataDir, logger: log } = opts;
  const env = opts.env ?? process.env;
  const cfg = config.current();
  registerConfigSecrets(cfg);
  checkProjects(cfg, dataDir); // a project inside this data dir is refused before anything starts

  const store = openStore(dataDir, cfg, log);
  const projects = new Projects({ store, config: () => config.current(), env, log });
  const memAvailable = memAvailableBytes();
  // Agents on other machines (nodes.*): the NATS server and the link to the nodes, before the launches use it.
  const nodes = cfg.nodes ? await startNodes(dataDir, cfg, store, projects, log) : undefined;
  const launches = new AgentLaunches({ dataDir, config, store, projects, env, log, memAvailable, remote: nodes });
  killOrphans(store, log, launches.markPrefix);
  store.pruneEvents(EVENT_RETENTION_MS);
  const factory = opts.sessionFactory?.(launches);
  const push = cfg.web.enabled && cfg.push.enabled ? pushKeys(dataDir, opts.pushAgent) : undefined;
  const s = buildServices({ config, store, log, env, projects, launches, factory, memAvailable, push, dataDir, nodes });
  void s.voice.prune().catch(() => undefined);
  const binaries = launches.health.refresh();

  const web = cfg.web.enabled ? webServer(dataDir, cfg, s, log) : undefined;
  const channels = [...(opts.extraChannels ?? []), ...(await chatChannels(cfg, dataDir, log))];
  if (web) s.chats.add(new WebChannel({ serving: () => web.serving(), detail: () => detailOf(web) }));
  for (const ch of channels) s.chats.add(ch);

  // Recovered messages are put back in line before any channel can deliver a new one.
  const recovered = await recoverOpenMessages(s);
  if (Object.values(recovered).some((n) => n > 0)) log.info(recovered, 'recovered open messages from the previous run');
  // The nodes' events are read once the turns recovery follows again are registered.
  nodes?.listen();
  // Without its own page the gateway does not run: what recovery started is undone.
  if (web) await startWeb(web, log).catch((err) => undoStart(s, launches, nodes, err));

  // The chat channels all at once: one that cannot reach its platform holds up nothing else.
  await s.channelStarts.startAll(channels, config.current().channelStartTimeoutSeconds * 1000, opts.signal);
  s.replies.delivery.kickAll();
  s.registry.startReaper();
  const release = () => {
    if (!opts.lock) lock.release();
  };
  let stopping: Promise<void> | undefined;
  const stop = (reason: string) => (stopping ??= shutdown({ s, launches, nodes, web, release }, reason));
  return { services: s, web, binaries, stop };
}

async function startNodes(
  dataDir: string,
  cfg: Config,
  store: Store,
  projects: Projects,
  log: Logger,
): Promise<NodesFront> {
  try {
    // Loaded only with a nodes section: one machine does not load the NATS client.
    const { NodesFront } = await import('../nodes/front/front.js');
    return await NodesFront.start({ dataDir, config: cfg.nodes!, store, projects, log });
  } catch (err) {
    await store.close();
    throw err;
  }
}

function openStore(dataDir: string, cfg: Config, log: Logger): Store {
  return new Store(path.join(dataDir, 'rudder.db'), {
    backgroundCheckpoints: true,
    synchronous: cfg.store.synchronous,
    groupCommit: cfg.store.groupCommit,
    onError: (message) =>
      log.warn({ err: message }, 'WAL checkpoint failed; SQLite keeps the data in the WAL meanwhile'),
  });
}

function webServer(dataDir: string, cfg: Config, s: Services, log: Logger): HttpServer {
  const token = loadOrCreateToken(dataDir);
  registerSecret(token);
  const { host, port, allowedHosts } = cfg.web;
  return new HttpServer({ host, port, allowedHosts, token, logger: log, api: s.api });
}

/** Web Push's VAPID keys, made once into the data dir; the private one is a secret of the log's. */
function pushKeys(dataDir: string, agent: https.Agent | undefined) {
  const keys = loadOrCreateVapidKeys(dataDir);
  registerSecret(keys.privateKey);
  return { keys, agent };
}

async function chatChannels(cfg: Config, dataDir: string, log: Logger): Promise<Channel[]> {
  try {
    return await createChannels(cfg.channels, { dataDir, logger: log });
  } catch (err) {
    log.error({ err: (err as Error).message }, 'a chat channel could not be created');
    return [];
  }
}

async function startWeb(web: HttpServer, log: Logger): Promise<void> {
  try {
    await web.start();
    log.info({ channel: 'web', url: web.baseUrl() }, 'channel started');
  } catch (err) {
    log.error({ channel: 'web', err: (err as Error).message }, 'the web channel failed to start');
    throw err;
  }
}

function detailOf(web: HttpServer): string {
  const { host, port } = web.address();
  return `http://${host}:${port}`;
}
