/**
 * `rudder node` as a running thing, in order: its store (conversations, session ids, and the node's
 * own record of turns and steers in flight), its projects and the agents' launches from its own
 * config, the agent processes a crashed run left behind stopped, the connection to NATS with the
 * credentials its join token carried, the turns a crash cut off reported, the conversations attached
 * to a person's pane here following it again, then the commands read, the heartbeat written and the
 * front's questions answered. Stopping undoes it in reverse: a turn the stop cuts off is left for the
 * next start to report, as after a crash (never "stopped"); an attached pane is only let go of.
 */
import path from 'node:path';
import { type JetStreamClient, jetstream } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { killOrphans } from '../../agents/common/leftovers.js';
import { AgentPool, type SessionFactory } from '../../agents/pool.js';
import { SessionRegistry, warmCap } from '../../agents/registry.js';
import { AGENT_TABLE, entryOf } from '../../agents/table.js';
import { checkProjects, type LiveConfig } from '../../config/load.js';
import { nodesSchema } from '../../config/nodes-schema.js';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import { memAvailableBytes } from '../../ops/proc.js';
import { GitRunner } from '../../projects/changes/run.js';
import { TreeActions } from '../../projects/changes/tree-actions.js';
import { AgentLaunches } from '../../projects/launches.js';
import { type Project, projectAgent } from '../../projects/projects.js';
import { Projects } from '../../projects/service.js';
import { Store } from '../../store/store.js';
import { type JoinToken, nodeServer } from '../credentials.js';
import { connectNats } from '../transport/connection.js';
import { Publisher } from '../transport/publisher.js';
import { DurableReader } from '../transport/reader.js';
import {
  COMMAND_STREAM,
  commandId,
  encode,
  eventId,
  eventSubject,
  type NodeEvent,
  nodeConsumer,
  PRESENCE_BUCKET,
  parseCommand,
} from '../wire.js';
import { Heartbeat } from './heartbeat.js';
import { NodeStore } from './node-store.js';
import { NodePanes } from './panes.js';
import { answerQueries } from './queries.js';
import { NodeReviews } from './review.js';
import { NodeRunner } from './runner.js';

export interface NodeOptions {
  dataDir: string;
  config: LiveConfig;
  join: JoinToken;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  /** Replaces the agent session factory (benchmarks measure the node with an in-process fake agent). */
  sessionFactory?: (launches: AgentLaunches) => SessionFactory;
}

export interface RunningNode {
  name: string;
  url: string;
  projects: string[];
  /**
   * Settles when the server closed the connection for good (its key was taken away by `rudder node remove`: the
   * client gives up after the server refuses it twice), with the error a start with that key gets; never when the
   * node itself stops.
   */
  refused: Promise<RudderError>;
  stop(reason: string): Promise<void>;
}

export async function startNode(o: NodeOptions): Promise<RunningNode> {
  const { dataDir, config, join, log } = o;
  const cfg = config.current();
  checkProjects(cfg, dataDir);
  const nodes = cfg.nodes ?? nodesSchema.parse({});
  // The node's own config may name another way to the same server (and its TLS); else the token's URL.
  const server = nodeServer(join, typeof nodes.nats === 'object' ? nodes.nats : undefined);
  const url = server.url;
  const local = openLocal(o);
  const { store, nodeStore, projects, registry } = local;
  let nc: NatsConnection;
  try {
    nc = await connectNats({ ...server, seed: join.seed, who: join.name, log });
  } catch (err) {
    await store.close();
    throw err;
  }
  const js = jetstream(nc);
  const publisher = new Publisher(js, log);
  const publish = (e: NodeEvent) => publisher.publish(eventSubject(join.name), encode(e), eventId(e));
  const { runner, reviews } = turnsAndReviews(join.name, local, publish, log);
  runner.recover();
  const panes = new NodePanes({
    node: join.name,
    store,
    projects,
    pool: local.pool,
    launches: local.launches,
    agent: () => config.current().agent,
    tmuxServers: () => config.current().agent.tmux.discover,
    own: (id, project) => runner.own(id, project),
    follow: (id) => runner.followSession(id),
    log,
  });
  panes.followAttached();
  const reader = commandReader(js, join.name, nodeStore, runner, log);
  reader.start();
  const kv = await new Kvm(nc).open(PRESENCE_BUCKET);
  const heartbeat = heartbeatOf(o, kv, nodes.heartbeatSeconds, local);
  heartbeat.start();
  const history = (p: Project) => local.launches.history(p);
  const queries: Subscription = answerQueries(nc, { node: join.name, projects, history, reviews, panes, log });
  registry.startReaper();
  const names = projects
    .set()
    .projects.filter((p) => !p.node)
    .map((p) => p.name);
  log.info({ node: join.name, url, projects: names }, 'node started');

  let stopping: Promise<void> | undefined;
  const running: Running = { ...local, nc, publisher, runner, reader, heartbeat, queries, log };
  const stop = (reason: string) => (stopping ??= stopNode(running, reason));
  return { name: join.name, url, projects: names, refused: refusedBy(nc, url, () => !!stopping), stop };
}

/**
 * The runner of the front's commands and the review of this node's trees: the busy guard lives here, with the
 * turns, each side asking the other before it starts (an action: is a turn on? a turn: is an action on?).
 */
function turnsAndReviews(
  node: string,
  local: ReturnType<typeof openLocal>,
  publish: (e: NodeEvent) => Promise<void>,
  log: Logger,
): { runner: NodeRunner; reviews: NodeReviews } {
  const { store, nodeStore, projects, pool, actions } = local;
  const reviews: NodeReviews = new NodeReviews({
    node,
    actions,
    projects,
    busy: (id) => runner.busy(id),
    released: (id) => runner.reviewed(id),
    log,
  });
  const reviewing = (id: string) => reviews.reviewing(id);
  const runner = new NodeRunner({ node, store, nodeStore, projects, pool, publish, reviewing, log });
  return { runner, reviews };
}

/** The connection closed by the server rather than by the node: the error a start would get, as connectNats says it. */
function refusedBy(nc: NatsConnection, url: string, stopping: () => boolean): Promise<RudderError> {
  return new Promise((resolve) => {
    void nc.closed().then((err) => {
      if (stopping()) return;
      const why = err?.message ?? 'the server closed the connection';
      resolve(new RudderError('NATS_UNAVAILABLE', `${url}: ${why}`, { url }, err));
    });
  });
}

/** What runs on this machine: the store, the projects, the agents' launches (orphans swept), the pool. */
function openLocal(o: NodeOptions) {
  const { dataDir, config, log } = o;
  const env = o.env ?? process.env;
  const cfg = config.current();
  const store = new Store(path.join(dataDir, 'rudder.db'), {
    backgroundCheckpoints: true,
    synchronous: cfg.store.synchronous,
    groupCommit: false,
  });
  const nodeStore = new NodeStore(store.db);
  const projects = new Projects({ store, config: () => config.current(), env, log });
  const memAvailable = memAvailableBytes();
  const launches = new AgentLaunches({ dataDir, config, store, projects, env, log, memAvailable });
  killOrphans(store, log, launches.markPrefix);
  const registry = new SessionRegistry({
    maxLive: warmCap(cfg.steering.maxLive, memAvailable).maxLive,
    idleMinutes: cfg.steering.idleMinutes,
    logger: log,
  });
  const pool = new AgentPool(registry, o.sessionFactory?.(launches) ?? launches.factory());
  // The review of this node's trees: git (and gh) bounded, marked as Rudder's, never through a shell.
  const actions = new TreeActions({
    run: new GitRunner({ env, markPrefix: launches.markPrefix, log, runHooks: cfg.review.runHooks }),
    ghEnv: env,
  });
  // How long a running review action may take to finish at the stop.
  const drainMs = cfg.shutdownDrainSeconds * 1000;
  return { store, nodeStore, projects, launches, registry, pool, actions, drainMs };
}

/** The front's commands, in order, each taken once (by its message id) before the runner handles it. */
function commandReader(js: JetStreamClient, node: string, nodeStore: NodeStore, runner: NodeRunner, log: Logger) {
  return new DurableReader({
    js,
    stream: COMMAND_STREAM,
    consumer: nodeConsumer(node),
    log,
    handle: (m) => {
      const c = parseCommand(m.data);
      if (!c) log.warn({ seq: m.seq }, 'an unreadable command was dropped');
      else if (nodeStore.take(commandId(c))) runner.handle(c);
      return undefined;
    },
  });
}

function heartbeatOf(o: NodeOptions, kv: KV, everySeconds: number, local: ReturnType<typeof openLocal>): Heartbeat {
  const { projects, registry } = local;
  return new Heartbeat({
    node: o.join.name,
    kv,
    everyMs: everySeconds * 1000,
    projects,
    registry,
    capabilities: (b) => (entryOf(b) ?? AGENT_TABLE['claude-stream']).capabilities,
    backendOf: (name) => projectAgent(o.config.current().agent, projects.require(name)).backend,
    log: o.log,
  });
}

type Running = ReturnType<typeof openLocal> & {
  nc: NatsConnection;
  publisher: Publisher;
  runner: NodeRunner;
  reader: DurableReader;
  heartbeat: Heartbeat;
  queries: Subscription;
  log: Logger;
};

/** The start undone in reverse: a turn the stop cuts off is left for the next start to report. */
async function stopNode(n: Running, reason: string): Promise<void> {
  n.log.info({ reason }, 'node stopping');
  n.runner.stopping();
  await n.reader.stop();
  n.queries.unsubscribe();
  await n.heartbeat.stop();
  // A review action (a merge, a push) gets time to finish: a git killed mid-merge leaves a half merge.
  const end = Date.now() + n.drainMs;
  while (Date.now() < end && n.actions.run.running() > 0) await new Promise((r) => setTimeout(r, 50));
  n.actions.stop(`node stopping (${reason})`);
  await Promise.all([n.pool.stopAll(`node stopping (${reason})`), n.launches.stop(`node stopping (${reason})`)]);
  await Promise.race([n.publisher.idle(), new Promise((r) => setTimeout(r, 3000))]);
  n.publisher.close();
  await n.nc.close().catch(() => undefined);
  await n.store.close();
  n.log.info('node stopped');
}
