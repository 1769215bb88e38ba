/**
 * The gateway, wired: the table of contents of its start. Built first (the store, the projects, the
 * link to the nodes, the agents' launches, the orphan sweep, the services), then opened (the channels
 * registered, recovery, the page's server started, the chat channels); shutdown.ts stops it. What
 * starts the gateway (the data dir's lock, the page's server, the process) lives above it, in src/app.
 */
import type https from 'node:https';
import path from 'node:path';
import type { BinaryCheck } from '../agents/common/binary-check.js';
import { killOrphans } from '../agents/common/leftovers.js';
import type { SessionFactory } from '../agents/pool.js';
import type { Channel } from '../channels/channel.js';
import { loadOrCreateVapidKeys } from '../channels/push/keys.js';
import { createChannels } from '../channels/registry.js';
import { WebChannel } from '../channels/web/channel.js';
import { checkProjects, type LiveConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { NodesFront } from '../nodes/front/front.js';
import type { Logger } from '../ops/logger.js';
import { memAvailableBytes } from '../ops/proc.js';
import { registerSecret } from '../ops/redact.js';
import { AgentLaunches } from '../projects/launches.js';
import { Projects } from '../projects/service.js';
import type { Clock } from '../schedules/scheduler.js';
import { Store } from '../store/store.js';
import { recoverOpenMessages } from './recovery.js';
import { buildServices, type Services } from './services.js';

export interface GatewayParts {
  dataDir: string;
  config: LiveConfig;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** Replaces the agent session factory (benchmarks measure the gateway with an in-process fake agent). */
  sessionFactory?: (launches: AgentLaunches) => SessionFactory;
  /** The HTTPS agent pushes go through (a test's, trusting its fake push service's certificate). */
  pushAgent?: https.Agent;
  /** The schedules' clock and timer (a test moves it by days); the system's by default. */
  clock?: Clock;
}

/** The page's server as the gateway runs it: started after recovery, before the chat channels; stopped with it. */
export interface PageServer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Serving now (the web channel's replies are its events, so they are delivered while it is). */
  serving(): boolean;
  address(): { host: string; port: number };
  /** The page's address without the token: the one to log. */
  baseUrl(): string;
}

/** A gateway built and not yet open: its services, and what shutdown.ts stops beside them. */
export interface Gateway {
  dataDir: string;
  services: Services;
  launches: AgentLaunches;
  /** The link to the nodes (nodes.*): closed after the sessions let go, with the embedded NATS server. */
  nodes: NodesFront | undefined;
  /** The binaries of the agents the config runs on, checked at start: a missing or broken one is reported. */
  binaries: Promise<BinaryCheck[]>;
}

export interface Opening {
  /** The page's server (web.enabled): without it running, the gateway does not run. */
  page: PageServer | undefined;
  /** Channels supplied by the caller (tests, embedding), started like the configured ones. */
  extraChannels?: Channel[];
  /** Aborts the wait for chat channels at startup (a signal arrived). */
  signal?: AbortSignal;
}

const EVENT_RETENTION_MS = 7 * 24 * 3600_000;

/** Tokens and keys from the config never reach the log, whatever a library puts in an error. */
function registerConfigSecrets(cfg: Config): void {
  const ch = cfg.channels;
  const secrets = [ch.telegram?.token, ch.telegram?.webhook?.secretToken, ch.discord?.token, ch.slack?.botToken];
  for (const v of [...secrets, ch.slack?.appToken, cfg.fallback?.apiKey]) registerSecret(v?.trim());
  for (const [k, v] of Object.entries(cfg.agent.env)) if (/KEY|TOKEN|SECRET|PASSWORD/i.test(k)) registerSecret(v);
}

/** Builds the gateway under the data dir's lock (the caller holds it): nothing takes work yet. */
export async function buildGateway(parts: GatewayParts): Promise<Gateway> {
  const { config, dataDir, logger: log } = parts;
  const env = parts.env ?? process.env;
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
  const factory = parts.sessionFactory?.(launches);
  const push = cfg.web.enabled && cfg.push.enabled ? pushKeys(dataDir, parts.pushAgent) : undefined;
  const { clock } = parts;
  const s = buildServices({
    config,
    store,
    log,
    env,
    projects,
    launches,
    factory,
    memAvailable,
    push,
    dataDir,
    nodes,
    clock,
  });
  void s.voice.prune().catch(() => undefined);
  return { dataDir, services: s, launches, nodes, binaries: launches.health.refresh() };
}

/** Opens the gateway: what a previous run left open first, then the page, the chat channels, the schedules. */
export async function openGateway(g: Gateway, o: Opening): Promise<void> {
  const { services: s } = g;
  const { page } = o;
  const channels = [...(o.extraChannels ?? []), ...(await chatChannels(s.config.current(), g.dataDir, s.log))];
  if (page) s.chats.add(new WebChannel({ serving: () => page.serving(), detail: () => detailOf(page) }));
  for (const ch of channels) s.chats.add(ch);

  // Recovered messages are put back in line before any channel can deliver a new one.
  const recovered = await recoverOpenMessages(s);
  if (Object.values(recovered).some((n) => n > 0))
    s.log.info(recovered, 'recovered open messages from the previous run');
  // The nodes' events are read once the turns recovery follows again are registered; a turn begun on a node
  // that no session follows (typed in a pane a conversation is attached to there) opens the conversation's.
  g.nodes?.listen((id) => s.conversations.lane(id).watchSession());
  // Without its own page the gateway does not run: what recovery started is undone.
  if (page) await startPage(page, s.log).catch((err) => undoStart(g, err));

  // The chat channels all at once: one that cannot reach its platform holds up nothing else.
  await s.channelStarts.startAll(channels, s.config.current().channelStartTimeoutSeconds * 1000, o.signal);
  s.replies.delivery.kickAll();
  s.registry.startReaper();
  // Schedules last: what came due while Rudder was down is caught up into lanes recovery has already filled.
  s.scheduler.start();
}

/** The page's server could not start: what recovery began is stopped, and the start fails with its error. */
async function undoStart({ services: s, launches, nodes }: Gateway, err: unknown): Promise<never> {
  const why = 'the web channel could not start';
  await Promise.all([s.pool.stopAll(why), launches.stop(why), s.notifier.stop(0)]);
  await Promise.allSettled(s.chats.all().map((c) => c.stop()));
  await nodes?.stop();
  await s.store.close();
  throw err;
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

async function startPage(page: PageServer, log: Logger): Promise<void> {
  try {
    await page.start();
    log.info({ channel: 'web', url: page.baseUrl() }, 'channel started');
  } catch (err) {
    log.error({ channel: 'web', err: (err as Error).message }, 'the web channel failed to start');
    throw err;
  }
}

function detailOf(page: PageServer): string {
  const { host, port } = page.address();
  return `http://${host}:${port}`;
}
