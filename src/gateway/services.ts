/**
 * The gateway's services, built in dependency order, each given exactly what it needs; nothing is
 * filled in afterwards. Read top to bottom, this is the graph of the gateway's middle.
 */
import type https from 'node:https';
import path from 'node:path';
import type { AgentLaunches } from '../agents/launch.js';
import { AgentPool, type SessionFactory } from '../agents/pool.js';
import { SessionRegistry, warmCap } from '../agents/registry.js';
import type { VapidKeys } from '../channels/push/keys.js';
import { PushSender } from '../channels/push/sender.js';
import type { LiveConfig } from '../config/load.js';
import type { NodesFront } from '../nodes/front/front.js';
import type { Logger } from '../ops/logger.js';
import { ReviewDesk } from '../projects/review/guard.js';
import { GitRunner } from '../projects/review/run.js';
import type { Projects } from '../projects/service.js';
import { nameOf } from '../projects/session-move.js';
import { AccessControl } from '../security/access.js';
import { AccessStore } from '../security/access-store.js';
import type { Store } from '../store/store.js';
import { GatewayApi } from './api/api.js';
import { PushApi } from './api/push-api.js';
import { PageSpeech } from './api/speech.js';
import { Budgets } from './budget/budgets.js';
import { EventBus } from './bus.js';
import { ChannelStarter } from './channel-start.js';
import { Chats } from './chats.js';
import { Commands } from './commands/commands.js';
import { Confirmations } from './commands/confirm.js';
import { ReviewCommands } from './commands/review.js';
import { Stopper } from './commands/stop.js';
import { Conversations } from './conversations/conversations.js';
import { Intake } from './intake/intake.js';
import { Router } from './intake/route.js';
import { ActionTokens } from './notify/action-tokens.js';
import { PushActions } from './notify/actions.js';
import { PushDelivery } from './notify/deliver.js';
import { Notifier } from './notify/notifier.js';
import { Presence } from './notify/presence.js';
import { ChatPrompts } from './permissions/chat-prompts.js';
import { PermissionDesk } from './permissions/desk.js';
import { publishPermissions } from './permissions/page-events.js';
import { Buttons } from './progress/buttons.js';
import { ProgressDriver } from './progress/driver.js';
import { ReplyGate } from './replies/gate.js';
import { Replies } from './replies/replies.js';
import { VoiceNotes } from './replies/voice-notes.js';
import { Reviews } from './review/reviews.js';
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
  /** Web Push's keys (push.enabled, with the page); without them nothing is pushed. */
  push?: { keys: VapidKeys; agent?: https.Agent };
  /** The data dir (voice notes' audio goes in its voice/ folder). */
  dataDir: string;
  /** Moves the local day's boundary for the budgets, read each time (tests of the midnight reset). */
  dayOffsetMs?: () => number;
  /** The link to the nodes (nodes.*): their state for /nodes and the status, their sessions for /sessions. */
  nodes?: NodesFront;
}

export type Services = ReturnType<typeof buildServices>;

export function buildServices(parts: ServiceParts) {
  const { config, store, log, env, projects, launches, factory, memAvailable, push, nodes } = parts;
  const cfg = config.current();
  // Agents: the warm cap from the machine's memory (or the config), the pool over the registry.
  const cap = warmCap(cfg.steering.maxLive, memAvailable);
  log.info({ maxLive: cap.maxLive, why: cap.why }, 'idle agent processes kept warm');
  const registry = new SessionRegistry({ maxLive: cap.maxLive, idleMinutes: cfg.steering.idleMinutes, logger: log });
  const pool = new AgentPool(registry, factory ?? launches.factory(), (id) => nameOf(store, id));
  const accessStore = new AccessStore(store.db);
  accessStore.init();
  const access = new AccessControl({ store: accessStore, config: cfg.channels as never });

  // What is shown: events, where each conversation lives, replies, permission requests, turn steps.
  const bus = new EventBus(store, log);
  const chats = new Chats(store);
  const gate = new ReplyGate();
  const voice = new VoiceNotes({
    dir: path.join(parts.dataDir, 'voice'),
    tts: () => config.current().tts,
    log,
    markPrefix: launches.markPrefix,
  });
  const replies = new Replies({ store, bus, chats, log, gate, voice });
  const desk = new PermissionDesk(log);
  const steps = new StepLog(store, bus, log, desk);
  publishPermissions(desk, bus);
  const prompts = new ChatPrompts({ desk, chats, replies, store, log });

  // Reviewing the agents' work: git (and gh) run bounded, marked as the gateway's, never through a shell.
  const git = new GitRunner({ env, markPrefix: launches.markPrefix, log });
  const reviewDesk = new ReviewDesk({ run: git, ghEnv: env });
  // Notifications: which conversation a page shows, the buttons' tokens, the pushes and when to send them.
  const presence = new Presence();
  const tokens = new ActionTokens();
  const sender = push && new PushSender({ keys: push.keys, subject: cfg.push.subject, agent: push.agent });
  const delivery = sender && new PushDelivery({ sender, subscriptions: store.push, log });
  const notifier = new Notifier({
    settings: () => config.current().push,
    store,
    desk,
    steps,
    presence,
    tokens,
    delivery,
    log,
  });

  // Conversations: the lanes (each asks the budgets before a new turn), then what people ask of them.
  const budgets = new Budgets({ config, store, projects, dayOffsetMs: parts.dayOffsetMs });
  const conversations = new Conversations({
    config,
    store,
    bus,
    registry,
    pool,
    steps,
    replies,
    desk,
    alerts: notifier,
    log,
    env,
    memAvailable,
    // A turn does not start while a review action (commit, merge, ...) runs on its tree.
    reviewing: (id) => {
      const tree = projects.workTree(id);
      return tree && reviewDesk.acting(tree.dir);
    },
    agentName: (id) => launches.agentName(id),
    budgets,
  });
  const reviews = new Reviews({ desk: reviewDesk, projects, conversations, bus, log });
  const cards = new ProgressDriver({
    steps,
    bus,
    log,
    gate,
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
  const confirms = new Confirmations({ chats, store, log });
  const review = new ReviewCommands({ reviews, chats, confirms, replies });
  const statusText = new StatusText({ config, store, registry, conversations, projects, budgets });
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
    review,
    budgets,
    log,
    nodes,
  });
  const router = new Router({ config, store, access, conversations, commands, desk, replies, bus, log });
  const buttons = new Buttons({
    access,
    prompts,
    cards,
    confirms,
    conversations,
    stop: (id) => stopper.stopFromButton(id),
    log,
  });
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
    agents: launches.health,
    budgets,
    spare: () => launches.spareProcess(),
    ...(nodes ? { nodes: () => nodes.status() } : {}),
  });
  const actions = new PushActions({ tokens, store, desk, steps, stop: (id) => stopper.stopFromButton(id), log });
  const pushApi = new PushApi({
    store,
    notifier,
    presence,
    actions,
    publicKey: push?.keys.publicKey,
    longTurnSeconds: () => config.current().push.longTurnSeconds,
  });
  const speech = new PageSpeech({ config, store, intake, voice, dataDir: parts.dataDir });
  const api = new GatewayApi({
    store,
    bus,
    chats,
    intake,
    desk,
    stopper,
    steps,
    projects,
    status,
    conversations,
    reviews,
    speech,
    log,
    push: pushApi,
  });

  return {
    config,
    store,
    log,
    registry,
    pool,
    projects,
    access,
    bus,
    chats,
    replies,
    voice,
    desk,
    steps,
    prompts,
    presence,
    tokens,
    notifier,
    conversations,
    reviewDesk,
    reviews,
    budgets,
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
