/**
 * The gateway's services, built in dependency order, each given exactly what it needs; nothing is
 * filled in afterwards. buildServices, read top to bottom, is the graph of the gateway's middle;
 * each step below it builds one concern's services.
 */
import type https from 'node:https';
import path from 'node:path';
import { AgentPool, type SessionFactory } from '../agents/pool.js';
import { SessionRegistry, warmCap } from '../agents/registry.js';
import type { VapidKeys } from '../channels/push/keys.js';
import { PushSender } from '../channels/push/sender.js';
import type { LiveConfig } from '../config/load.js';
import { knownNames } from '../config/schema.js';
import type { NodesFront } from '../nodes/front/front.js';
import { RemoteActions } from '../nodes/front/remote-review.js';
import type { Query } from '../nodes/wire.js';
import type { Logger } from '../ops/logger.js';
import { GitRunner } from '../projects/changes/run.js';
import { TreeActions } from '../projects/changes/tree-actions.js';
import type { PullRequestResult } from '../projects/changes/types.js';
import type { AgentLaunches } from '../projects/launches.js';
import type { Projects } from '../projects/service.js';
import { nameOf } from '../projects/session-move.js';
import { scheduleSet } from '../schedules/definitions.js';
import { type Clock, Scheduler, systemClock } from '../schedules/scheduler.js';
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
import { ScheduleCommands } from './commands/schedules.js';
import { Stopper } from './commands/stop.js';
import { Conversations } from './conversations/conversations.js';
import { Entry } from './intake/entry.js';
import { Intake } from './intake/intake.js';
import { Presses } from './intake/presses.js';
import { Router } from './intake/route.js';
import { HookReceiver } from './jobs/hook-receiver.js';
import { ScheduleDoor } from './jobs/schedule-door.js';
import { Schedules } from './jobs/schedules.js';
import { recordPullRequest } from './jobs/shepherd.js';
import { ActionTokens } from './notify/action-tokens.js';
import { PushActions } from './notify/actions.js';
import { PushDelivery } from './notify/deliver.js';
import { Notifier } from './notify/notifier.js';
import { Presence } from './notify/presence.js';
import { ChatPrompts } from './permissions/chat-prompts.js';
import { PermissionDesk } from './permissions/desk.js';
import { publishPermissions } from './permissions/page-events.js';
import { ReplyGate } from './replies/gate.js';
import { Replies } from './replies/replies.js';
import { VoiceNotes } from './replies/voice-notes.js';
import { Reviews } from './review/reviews.js';
import { StatusText } from './status/conversation-text.js';
import { StatusReporter } from './status/report.js';
import { StepLog } from './steps/step-log.js';
import { ProgressDriver } from './surfaces/driver.js';

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
  /** The schedules' clock and timer (tests move it by days); the system's by default. */
  clock?: Clock;
}

export type Services = ReturnType<typeof buildServices>;

export function buildServices(parts: ServiceParts) {
  const { config, store, log, projects } = parts;
  // Agents: the warm cap from the machine's memory (or the config), the pool over the registry; who may talk to them.
  const pooled = agents(parts);
  const access = accessControl(parts);
  // What is shown: events, where each conversation lives, replies, permission requests, turn steps.
  const shown = whatIsShown(parts);
  // Notifications: which conversation a page shows, the buttons' tokens, the pushes and when to send them.
  const notify = notifications(parts, shown);
  // Conversations: the lanes (each asks the budgets and the review actions before a new turn), their cards.
  const conversing = conversationsOf(parts, pooled, shown, notify);
  // Jobs: the step every message takes, the schedules' one timer and the webhooks, entering as people's messages do.
  const jobs = jobsOf(parts, shown, notify, conversing);
  // What people ask of them: every command, the one door of messages and presses.
  const asked = whatPeopleAsk(parts, pooled, shown, conversing, access, jobs);
  // What is read and asked from outside: the status report, the narrow API the HTTP layer calls.
  const outside = askedFromOutside(parts, pooled, shown, notify, conversing, asked, jobs);
  return {
    config,
    store,
    log,
    projects,
    access,
    ...pooled,
    ...shown,
    ...notify,
    ...conversing,
    ...jobs,
    ...asked,
    ...outside,
  };
}

type Pooled = ReturnType<typeof agents>;
type Shown = ReturnType<typeof whatIsShown>;
type Notify = ReturnType<typeof notifications>;
type Conversing = ReturnType<typeof conversationsOf>;
type Jobs = ReturnType<typeof jobsOf>;
type Asked = ReturnType<typeof whatPeopleAsk>;

function agents({ config, store, log, launches, factory, memAvailable }: ServiceParts) {
  const { steering } = config.current();
  const cap = warmCap(steering.maxLive, memAvailable);
  log.info({ maxLive: cap.maxLive, why: cap.why }, 'idle agent processes kept warm');
  const registry = new SessionRegistry({ maxLive: cap.maxLive, idleMinutes: steering.idleMinutes, logger: log });
  const pool = new AgentPool(registry, factory ?? launches.factory(), (id) => nameOf(store, id));
  return { registry, pool };
}

function accessControl({ config, store }: ServiceParts): AccessControl {
  const accessStore = new AccessStore(store.db);
  accessStore.init();
  return new AccessControl({ store: accessStore, config: config.current().channels as never });
}

function whatIsShown({ config, store, log, launches, dataDir }: ServiceParts) {
  const bus = new EventBus(store, log);
  const chats = new Chats(store);
  const gate = new ReplyGate();
  const tts = () => config.current().tts;
  const voice = new VoiceNotes({ dir: path.join(dataDir, 'voice'), tts, log, markPrefix: launches.markPrefix });
  const replies = new Replies({ store, bus, chats, log, gate, voice });
  const desk = new PermissionDesk(log);
  const steps = new StepLog(store, bus, log, desk);
  publishPermissions(desk, bus);
  const prompts = new ChatPrompts({ desk, chats, replies, store, log });
  return { bus, chats, gate, voice, replies, desk, steps, prompts };
}

function notifications({ config, store, log, push }: ServiceParts, { desk, steps }: Shown) {
  const presence = new Presence();
  const tokens = new ActionTokens();
  const subject = config.current().push.subject;
  const sender = push && new PushSender({ keys: push.keys, subject, agent: push.agent });
  const delivery = sender && new PushDelivery({ sender, subscriptions: store.push, log });
  const settings = () => config.current().push;
  const notifier = new Notifier({ settings, store, desk, steps, presence, tokens, delivery, log });
  return { presence, tokens, notifier };
}

function conversationsOf(parts: ServiceParts, { registry, pool }: Pooled, shown: Shown, { notifier }: Notify) {
  const { config, store, log, env, memAvailable, projects, launches } = parts;
  const { bus, steps, replies, desk } = shown;
  // Reviewing the agents' work: git (and gh) run bounded, marked as the gateway's, never through a shell.
  const treeActions = new TreeActions({
    run: new GitRunner({ env, markPrefix: launches.markPrefix, log, runHooks: config.current().review.runHooks }),
    ghEnv: env,
  });
  // The review actions sent to a node's tree: the lane asks them too, as it asks treeActions for a local tree.
  const remoteActions = new RemoteActions();
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
      return (tree && treeActions.acting(tree.dir)) ?? remoteActions.acting(id);
    },
    agentName: (id) => launches.agentName(id),
    budgets,
  });
  // A pull request opened from a conversation's branch is that conversation's (GitHub's events about it come there).
  const pullRequestOpened = (id: string, r: PullRequestResult) =>
    recordPullRequest(store, id, projects.peek(id).name, r);
  const reviews = new Reviews({
    actions: treeActions,
    projects,
    conversations,
    bus,
    log,
    pullRequestOpened,
    remoteActions,
    ...(parts.nodes ? { nodes: parts.nodes } : {}),
  });
  const cards = progressCards(parts, shown, conversations);
  // The one stop, whoever asks: /stop, the page's and a card's Stop, a scheduled run past its timeout.
  const stopper = new Stopper({ store, conversations, steps, replies });
  return { treeActions, budgets, conversations, reviews, cards, stopper };
}

/** Progress cards in chats, from the step log; a text between tools goes out as a notice of its own. */
function progressCards({ config, store, log }: ServiceParts, shown: Shown, conversations: Conversations) {
  const { steps, bus, gate, chats, replies } = shown;
  const settings = () => config.current();
  const target = (id: string) => chats.of(id);
  const queued = (id: string) => conversations.peek(id)?.queueDepth() ?? 0;
  const rows = (ids: string[]) => ids.map((m) => store.message(m)).filter((r) => r !== undefined);
  const sendText = (id: string, text: string, ids: string[]) => void replies.send(id, 'notice', text, rows(ids));
  return new ProgressDriver({ steps, bus, log, gate, settings, target, queued, sendText });
}

/** Schedules and webhooks: their messages enter through the one door (entry.ts), as people's do. */
function jobsOf(parts: ServiceParts, shown: Shown, { notifier }: Notify, conversing: Conversing) {
  const { config, store, log, projects } = parts;
  const { bus, replies } = shown;
  const { conversations, stopper } = conversing;
  const entry = new Entry({ store, bus, conversations });
  const door = new ScheduleDoor({ store, entry, projects, replies, stopper, conversations, bus, log });
  const load = () => {
    const cfg = config.current();
    const kept = store.keptSchedules;
    return scheduleSet(cfg.schedules, kept.all(), kept.pausedNames(), knownNames(cfg));
  };
  const scheduler = new Scheduler({ clock: parts.clock ?? systemClock, load, firings: store.firings, door, log });
  const schedules = new Schedules({ config, store, scheduler, log });
  const hooks = new HookReceiver({ config, store, entry, projects, replies, notifier, log });
  return { entry, scheduler, schedules, hooks };
}

function whatPeopleAsk(
  parts: ServiceParts,
  pooled: Pooled,
  shown: Shown,
  conversing: Conversing,
  access: AccessControl,
  jobs: Jobs,
) {
  const { config, store, log, projects, nodes } = parts;
  const { bus, chats, replies, desk, prompts } = shown;
  const { conversations, budgets, cards, stopper } = conversing;
  const confirms = new Confirmations({ chats, store, log });
  const review = new ReviewCommands({ reviews: conversing.reviews, chats, confirms, replies });
  const statusText = new StatusText({ config, store, registry: pooled.registry, conversations, projects, budgets });
  const commands = new Commands({
    config,
    store,
    pool: pooled.pool,
    conversations,
    projects,
    desk,
    prompts,
    stopper,
    statusText,
    replies,
    review,
    budgets,
    schedules: new ScheduleCommands({ schedules: jobs.schedules, projects }),
    log,
    nodes,
    history: (p) => parts.launches.history(p),
  });
  const router = new Router({ config, store, access, conversations, commands, desk, replies, bus, log });
  const stop = (id: string) => stopper.stopFromButton(id);
  const presses = new Presses({ access, prompts, cards, confirms, conversations, stop, log });
  const intake = new Intake({ store, entry: jobs.entry, access, conversations, replies, router, presses, log });
  // Channels start in parallel; the status report reads their starts.
  const channelStarts = new ChannelStarter(intake, log, () => replies.delivery.kickAll());
  return { confirms, commands, router, intake, channelStarts };
}

function askedFromOutside(
  parts: ServiceParts,
  pooled: Pooled,
  shown: Shown,
  notify: Notify,
  conversing: Conversing,
  asked: Asked,
  jobs: Jobs,
) {
  const { config, store, log, projects, launches, nodes, push, dataDir } = parts;
  const { bus, chats, desk, steps } = shown;
  const { conversations, reviews, stopper } = conversing;
  const { intake } = asked;
  const status = new StatusReporter({
    config,
    store,
    registry: pooled.registry,
    conversations,
    projects,
    chats,
    channelStarts: asked.channelStarts,
    agents: launches.health,
    shared: () => launches.sharedProcesses(),
    budgets: conversing.budgets,
    spare: () => launches.spareProcess(),
    ...(nodes ? { nodes: () => nodes.status() } : {}),
    schedules: () => jobs.schedules.status(),
  });
  const stop = (id: string) => stopper.stopFromButton(id);
  const actions = new PushActions({ tokens: notify.tokens, store, desk, steps, stop, log });
  const longTurnSeconds = () => config.current().push.longTurnSeconds;
  const { notifier, presence } = notify;
  const pushApi = new PushApi({ store, notifier, presence, actions, publicKey: push?.keys.publicKey, longTurnSeconds });
  const speech = new PageSpeech({ config, store, intake, voice: shown.voice, dataDir });
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
    schedules: jobs.schedules,
    hooks: jobs.hooks,
    tmuxServers: () => config.current().agent.tmux.discover,
    projectDeps: (id) => asked.commands.projectDeps(id),
    launches,
    agent: () => config.current().agent,
    ...(nodes ? { askNode: (node: string, q: Query, ms?: number) => nodes.query(node, q, ms) } : {}),
  });
  return { status, api };
}
