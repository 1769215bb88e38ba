/**
 * The front's side of its nodes: the NATS server (the embedded child, or an existing one), the
 * connection, the streams and consumers, the presence watch, and the remote sessions' link. The
 * gateway builds it before the agents' launches (which make remote sessions through it) and
 * starts reading the nodes' events after recovery (so a turn followed again is there first).
 *
 * Each event is checked before it is used: the conversation must be one the front knows and
 * pinned to the node that sent it (its project lives there), or it is refused and logged. It is
 * acknowledged once what it caused is committed to the store.
 */
import { type JetStreamManager, type JsMsg, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { AgentSession, Capabilities } from '../../agents/session.js';
import type { NodesConfig } from '../../config/nodes-schema.js';
import type { Logger } from '../../ops/logger.js';
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import { frontSeed, readNodes } from '../credentials.js';
import { connectNats } from '../transport/connection.js';
import { EmbeddedServer } from '../transport/embedded.js';
import { Publisher } from '../transport/publisher.js';
import { DurableReader } from '../transport/reader.js';
import { ensureFrontStreams, ensureNodeConsumer } from '../transport/streams.js';
import {
  type Command,
  commandId,
  commandSubject,
  EVENT_STREAM,
  encode,
  FRONT_CONSUMER,
  type NodeEvent,
  nodeOfSubject,
  PRESENCE_BUCKET,
  parseNodeEvent,
  type Query,
  type QueryAnswer,
  querySubject,
} from '../wire.js';
import { PresenceWatch } from './presence.js';
import type { NodeLink, Reach, RemoteLaunch } from './remote-launch.js';
import { RemoteSession } from './remote-session.js';
import { type NodeStatus, nodeStatuses } from './status.js';

export interface NodesFrontOptions {
  dataDir: string;
  config: NodesConfig;
  projects: Projects;
  store: Store;
  log: Logger;
}

interface Routed {
  conversationId: string;
  deliver(e: NodeEvent): void;
}

export class NodesFront implements NodeLink {
  private readonly routes = new Map<string, Routed>();
  private readonly reader: DurableReader;
  private readonly publisher: Publisher;
  /** Events refused because the conversation is not pinned to the node that sent them. */
  refused = 0;
  /** Opens a conversation's session here (the gateway's lane), so a turn nobody followed yet is followed. */
  private follow: ((conversationId: string) => void) | undefined;

  private constructor(
    private readonly o: NodesFrontOptions,
    readonly nc: NatsConnection,
    readonly jsm: JetStreamManager,
    readonly presence: PresenceWatch,
    readonly url: string,
    private readonly server: EmbeddedServer | undefined,
  ) {
    const js = jetstream(nc);
    this.publisher = new Publisher(js, o.log);
    this.reader = new DurableReader({
      js,
      stream: EVENT_STREAM,
      consumer: FRONT_CONSUMER,
      log: o.log,
      handle: (m) => this.handle(m),
    });
  }

  static async start(o: NodesFrontOptions): Promise<NodesFront> {
    const c = o.config;
    const server =
      c.nats === 'embedded'
        ? await EmbeddedServer.start({ dataDir: o.dataDir, port: c.embeddedPort, bin: c.natsServerBin, log: o.log })
        : undefined;
    try {
      const url = server?.url ?? (c.nats as Exclude<NodesConfig['nats'], 'embedded'>).url;
      const tls = c.nats === 'embedded' ? undefined : c.nats.tls;
      const nc = await connectNats({ url, seed: frontSeed(o.dataDir), who: 'front', tls, log: o.log });
      const jsm = await jetstreamManager(nc);
      const settings = { ackWaitMs: c.ackWaitSeconds * 1000 };
      await ensureFrontStreams(nc, jsm, settings);
      for (const name of Object.keys(readNodes(o.dataDir))) await ensureNodeConsumer(jsm, name, settings);
      const kv = await new Kvm(nc).open(PRESENCE_BUCKET);
      const presence = new PresenceWatch(kv, c.lostAfterSeconds * 1000, o.log);
      // A node added while the front runs may have no consumer yet (rudder node add could not make it): made here.
      presence.onUp((node) => {
        if (!(node in readNodes(o.dataDir))) return;
        ensureNodeConsumer(jsm, node, settings).catch((err: Error) =>
          o.log.error({ node, err: err.message }, "the node's command consumer could not be made"),
        );
      });
      await presence.start();
      o.log.info({ url, embedded: !!server }, 'nodes: connected to NATS');
      return new NodesFront(o, nc, jsm, presence, url, server);
    } catch (err) {
      await server?.stop();
      throw err;
    }
  }

  /** The session the agents' launches (projects/launches.ts) make for a project on a node. */
  session(launch: RemoteLaunch): AgentSession {
    return new RemoteSession(launch, this);
  }

  /**
   * Starts reading the nodes' events (after recovery: the turns it follows again are registered first); `follow`
   * opens a conversation's session when a node reports a turn of it nobody here follows.
   */
  listen(follow?: (conversationId: string) => void): void {
    this.follow = follow;
    this.reader.start();
  }

  // ---- NodeLink ----

  send(node: string, cmd: Command): void {
    void this.publisher.publish(commandSubject(node), encode(cmd), commandId(cmd));
  }

  reach(node: string): Reach {
    return this.presence.reach(node);
  }

  onReach(node: string, fn: (r: Reach) => void): () => void {
    return this.presence.onReach(node, fn);
  }

  capabilities(node: string, project: string): Capabilities | undefined {
    return this.presence.presence(node)?.projects.find((p) => p.name === project)?.capabilities;
  }

  register(r: Routed): () => void {
    this.routes.set(r.conversationId, r);
    return () => {
      if (this.routes.get(r.conversationId) === r) this.routes.delete(r.conversationId);
    };
  }

  turnEnded(turnId: string): boolean {
    const t = this.o.store.turn(turnId);
    return !!t && t.outcome !== null;
  }

  // ---- the rest of the front ----

  /** Asks a node (request/reply: nothing durable); NODE_UNKNOWN-like errors come back as { ok: false }. */
  async query(node: string, q: Query, timeoutMs = 5_000): Promise<QueryAnswer> {
    try {
      const m = await this.nc.request(querySubject(node), encode(q), { timeout: timeoutMs });
      return JSON.parse(new TextDecoder().decode(m.data)) as QueryAnswer;
    } catch (err) {
      const r = this.reach(node);
      return {
        ok: false,
        error: {
          code: 'AGENT_UNREACHABLE',
          message: `Node ${node} did not answer (${(err as Error).message})${r.reachable ? '' : '; it is lost'}.`,
          context: { node },
        },
      };
    }
  }

  /** Each node the front knows (added, pinned or heard from): its state, projects and live sessions. */
  status(now = Date.now()): NodeStatus[] {
    return nodeStatuses({
      added: Object.keys(readNodes(this.o.dataDir)),
      pinned: this.o.projects.set().projects.filter((p) => p.node),
      presence: this.presence,
      now,
    });
  }

  /** Commands not yet stored in the stream. */
  pendingCommands(): number {
    return this.publisher.pending();
  }

  async stop(): Promise<void> {
    await Promise.race([this.publisher.idle(), new Promise((r) => setTimeout(r, 2000))]);
    this.publisher.close();
    this.presence.stop();
    await this.reader.stop();
    await this.nc.close().catch(() => undefined);
    await this.server?.stop();
  }

  private handle(m: JsMsg): Promise<void> | undefined {
    const node = nodeOfSubject(m.subject);
    const e = parseNodeEvent(m.data);
    if (!node || !e) {
      this.o.log.warn({ subject: m.subject, seq: m.seq }, 'an unreadable message from a node was dropped');
      return undefined;
    }
    const known = this.o.store.conversation(e.conversationId) !== undefined;
    const pinned = known ? this.o.projects.peek(e.conversationId).node : undefined;
    if (pinned !== node) {
      this.refused++;
      this.o.log.warn(
        { code: 'NODE_REFUSED', node, conversationId: e.conversationId, pinnedTo: pinned ?? null, type: e.type },
        `refused an event from node ${node}: conversation ${e.conversationId} is not pinned to it`,
      );
      return undefined;
    }
    // News of the node before its heartbeat: every session on it hears it is back before this event is used.
    this.presence.heardFrom(node);
    const route = this.routes.get(e.conversationId) ?? this.opened(e);
    if (!route) {
      this.o.log.debug({ node, conversationId: e.conversationId, type: e.type }, 'no session follows this event');
      return undefined;
    }
    route.deliver(e);
    return this.committed();
  }

  /**
   * A turn the agent on the node began on its own that no session here follows (one typed in a pane the
   * conversation is attached to there, while the front was down): the conversation's session is opened to follow it.
   */
  private opened(e: NodeEvent): Routed | undefined {
    if (e.type !== 'turn' || !this.follow || this.turnEnded(e.turnId)) return undefined;
    try {
      this.follow(e.conversationId);
    } catch (err) {
      this.o.log.info({ conversationId: e.conversationId, err: String(err) }, 'a turn on a node is not followed');
    }
    return this.routes.get(e.conversationId);
  }

  /** After what the event set off (turn listeners run in microtasks, steps in the next macrotask) is committed. */
  private committed(): Promise<void> {
    return new Promise((resolve, reject) =>
      setImmediate(() => setImmediate(() => this.o.store.committed().then(resolve, reject))),
    );
  }
}
