/**
 * The gateway's services, built in dependency order, each given exactly what it needs; nothing is
 * filled in afterwards. Read top to bottom, this is the graph of the gateway's middle.
 */
import { ClaudeHealth } from '../agents/claude/health.js';
import type { AgentLaunches } from '../agents/launch.js';
import { AgentPool, type SessionFactory } from '../agents/pool.js';
import { SessionRegistry, warmCap } from '../agents/registry.js';
import type { LiveConfig } from '../config/load.js';
import type { NodesFront } from '../nodes/front/front.js';
import type { Logger } from '../ops/logger.js';
import type { Projects } from '../projects/service.js';
import { nameOf } from '../projects/session-move.js';
import { AccessControl } from '../security/access.js';
import { AccessStore } from '../security/access-store.js';
import type { Store } from '../store/store.js';
import { GatewayApi } from './api/api.js';
import { EventBus } from './bus.js';
import { ChannelStarter } from './channel-start.js';
import { Chats } from './chats.js';
import { Commands } from './commands/commands.js';
import { Stopper } from './commands/stop.js';
import { Conversations } from './conversations/conversations.js';
import { Intake } from './intake/intake.js';
import { Router } from './intake/route.js';
import { ChatPrompts } from './permissions/chat-prompts.js';
import { PermissionDesk } from './permissions/desk.js';
import { publishPermissions } from './permissions/page-events.js';
import { Buttons } from './progress/buttons.js';
import { ProgressDriver } from './progress/driver.js';
import { Replies } from './replies/replies.js';
import { StatusText } from './status/conversation-text.js';
import { StatusReporter } from './status/report.js';
import { StepLog } from './steps/step-log.js';

export interface ServiceParts {
  config: LiveConfig;
  store: Store;
  log: Logger;
  env: NodeJS.ProcessEnv;
  /** Each conversation's project (launches read it too). */
  projects: Projects;
  launches: AgentLaunches;
  /** MemAvailable at start, for the default warm cap. */
  memAvailable: number | undefined;
  /** Replaces the agent session factory (benchmarks measure the gateway with an in-process fake agent). */
  factory?: SessionFactory;
  /** The link to the nodes (nodes.*): their state for /nodes and the status, their sessions for /sessions. */
  nodes?: NodesFront;
}

export type Services = ReturnType<typeof buildServices>;

export function buildServices(parts: ServiceParts) {
  const { config, store, log, env, projects, launches, factory, memAvailable, nodes } = parts;
  const cfg = config.current();
  // Agents: the warm cap from the machine's memory (or the config), the pool over the registry.
  const cap = warmCap(cfg.steering.maxLive, memAvailable);
  log.info({ maxLive: cap.maxLive, why: cap.why }, 'idle agent processes kept warm');
  const registry = new SessionRegistry({ maxLive: cap.maxLive, idleMinutes: cfg.steering.idleMinutes, logger: log });
  const pool = new AgentPool(registry, factory ?? launches.factory(), (id) => nameOf(store, id));
  const claude = new ClaudeHealth(() => ({
    configured: config.current().agent.claudeBin,
    env,
    agentEnv: launches.agentEnv(),
  }));
  const accessStore = new AccessStore(store.db);
  accessStore.init();
  const access = new AccessControl({ store: accessStore, config: cfg.channels as never });

  // What is shown: events, where each conversation lives, replies, permission requests, turn steps.
  const bus = new EventBus(store);
  const chats = new Chats(store);
  const replies = new Replies({ store, bus, chats, log });
  const desk = new PermissionDesk(log);
  const steps = new StepLog(store, bus, log, desk);
  publishPermissions(desk, bus);
  const prompts = new ChatPrompts({ desk, chats, replies, store, log });

  // Conversations: the lanes, then what people ask of them.
  const conversations = new Conversations({
    config,
    store,
    bus,
    registry,
    pool,
    steps,
    replies,
    desk,
    log,
    env,
    memAvailable,
  });
  const cards = new ProgressDriver({
    steps,
    bus,
    log,
    settings: () => config.current(),
    target: (id) => chats.of(id),
    queued: (id) => conversations.peek(id)?.queueDepth() ?? 0,
    sendText: (id, text, inputIds) =>
      replies.send(
        id,
        'notice',
        text,
        inputIds.map((m) => store.message(m)).filter((r) => r !== undefined),
      ),
  });
  const stopper = new Stopper({ store, conversations, steps, replies });
  const statusText = new StatusText({ config, store, registry, conversations, projects });
  const commands = new Commands({
    config,
    store,
    pool,
    conversations,
    projects,
    desk,
    prompts,
    stopper,
    statusText,
    replies,
    log,
    nodes,
  });
  const router = new Router({ config, store, access, conversations, commands, desk, replies, log });
  const buttons = new Buttons({ access, prompts, cards, conversations, stop: (id) => stopper.stopFromButton(id), log });
  const intake = new Intake({ store, bus, access, conversations, replies, router, buttons, log });

  // Channels start in parallel; the status report reads their starts.
  const channelStarts = new ChannelStarter(intake, log, () => replies.delivery.kickAll());
  const status = new StatusReporter({
    config,
    store,
    registry,
    conversations,
    projects,
    chats,
    channelStarts,
    claude,
    spare: () => launches.spareProcess(),
    ...(nodes ? { nodes: () => nodes.status() } : {}),
  });
  const api = new GatewayApi({ store, bus, chats, intake, desk, stopper, steps, projects, status, conversations, log });

  return {
    config,
    store,
    log,
    registry,
    pool,
    claude,
    projects,
    access,
    bus,
    chats,
    replies,
    desk,
    steps,
    prompts,
    conversations,
    cards,
    stopper,
    commands,
    router,
    intake,
    channelStarts,
    status,
    api,
  };
}
