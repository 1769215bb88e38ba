/**
 * The gateway's shared state and the services lanes and intake call: acknowledgements, the
 * outbox, hot settings, the steering switch, permission relay and the per-conversation lanes.
 */
import type { ClaudeHealth } from '../agents/claude/health.js';
import type { AgentPool } from '../agents/pool.js';
import { type SessionRegistry, warmCap } from '../agents/registry.js';
import type { AgentSession, PermissionRequest } from '../agents/session.js';
import type {
  AcceptResult,
  AckKind,
  Channel,
  InboundMessage,
  InboundPress,
  InboundSink,
  PressResult,
} from '../channels/channel.js';
import type { LiveConfig } from '../config/load.js';
import type { Config, QueueMode } from '../config/schema.js';
import { RudderError } from '../errors.js';
import type { LocalModel } from '../fallback/local-model.js';
import type { Logger } from '../ops/logger.js';
import { ProjectCommands } from '../projects/commands.js';
import { projectAgent } from '../projects/projects.js';
import type { Projects } from '../projects/service.js';
import type { AccessControl } from '../security/access.js';
import type { Store } from '../store/store.js';
import type { MessageRow } from '../store/types.js';
import type { EventBus } from './bus.js';
import type { ChannelStartState } from './channel-start.js';
import type { CommandContext } from './commands.js';
import { composeAgentText, sourceOf } from './compose.js';
import type { Delivery } from './delivery.js';
import { acceptInbound } from './intake.js';
import { Lane } from './lane.js';
import type { LaneContext, LaneSettings } from './lane-context.js';
import type { ProgressDriver } from './progress/driver.js';
import { handlePress } from './progress/press.js';
import type { PermissionPrompts } from './progress/prompts.js';
import { statusText } from './status-text.js';
import { describeTurn } from './steps/describe.js';
import type { StepLog } from './steps/step-log.js';

const ACK_EMOJI: Record<AckKind, string> = { received: '👀', steered: '➡️', queued: '⏳', stopped: '⏹' };

/** The data of an 'ack' event. */
export function ackData(kind: AckKind, note?: string): Record<string, unknown> {
  return { kind, emoji: ACK_EMOJI[kind], ...(note ? { note } : {}) };
}

export interface OpenPermission {
  conversationId: string;
  session: AgentSession;
  request: PermissionRequest;
  messageId: string | null;
  /** The turn that asked: its end withdraws the request. */
  turnId: string;
}

export interface CoreParts {
  config: LiveConfig;
  store: Store;
  bus: EventBus;
  registry: SessionRegistry;
  pool: AgentPool;
  access: AccessControl;
  log: Logger;
  steps: StepLog;
  env: NodeJS.ProcessEnv;
  localModel: () => LocalModel | undefined;
  projects: Projects;
  /** MemAvailable at start, for the default warm cap. */
  memAvailable: number | undefined;
}

export class GatewayCore implements InboundSink {
  readonly store: Store;
  readonly bus: EventBus;
  readonly registry: SessionRegistry;
  readonly pool: AgentPool;
  readonly access: AccessControl;
  readonly log: Logger;
  readonly steps: StepLog;
  readonly projects: Projects;
  readonly channels = new Map<string, Channel>();
  readonly lanes = new Map<string, Lane>();
  readonly permissions = new Map<string, OpenPermission>();
  /** Permission requests as shown in the chats (buttons, or the numbered notice); set by the gateway's wiring. */
  prompts!: PermissionPrompts;
  delivery!: Delivery;
  /** Whether the claude binary runs (set by the gateway; shown in the status report). */
  claudeHealth: ClaudeHealth | undefined;
  /** How the chat channels' starts went (for the status report); set by the gateway. */
  channelStarts?: { state(name: string): ChannelStartState | undefined };
  /** Turn progress cards in the chats (set by the gateway's wiring). */
  progress?: ProgressDriver;
  private shutting = false;
  private steeringWasOn: boolean | undefined;
  private readonly laneContext: LaneContext;

  constructor(private readonly parts: CoreParts) {
    this.store = parts.store;
    this.bus = parts.bus;
    this.registry = parts.registry;
    this.pool = parts.pool;
    this.access = parts.access;
    this.log = parts.log;
    this.steps = parts.steps;
    this.projects = parts.projects;
    this.laneContext = {
      store: this.store,
      bus: this.bus,
      pool: this.pool,
      log: this.log,
      steps: this.steps,
      settings: (id) => this.laneSettings(id),
      ack: (row, kind, note) => this.ack(row, kind, note),
      send: (id, kind, text, rows, opts) => this.send(id, kind, text, rows, opts),
      typing: (id, on) => this.typing(id, on),
      fallback: (rows) => this.fallback(rows),
      permissionOpened: (id, session, request, messageId, turnId) =>
        this.permissionOpened(id, session, request, messageId, turnId),
      withdrawPermissions: (turnId) => this.withdrawPermissions(turnId),
      shuttingDown: () => this.shutting,
    };
  }

  /** Resolves once the message is committed: the channel acknowledges it to the platform then. */
  async accept(msg: InboundMessage): Promise<AcceptResult> {
    const result = await acceptInbound(this, msg);
    await this.store.committed();
    return result;
  }

  admits(msg: InboundMessage): boolean {
    return this.access.admits(msg);
  }

  press(p: InboundPress): Promise<PressResult> {
    return handlePress(this, p);
  }

  settings(): Config {
    return this.parts.config.current();
  }

  markShuttingDown(): void {
    this.shutting = true;
  }

  lane(conversationId: string): Lane {
    let lane = this.lanes.get(conversationId);
    if (!lane) this.lanes.set(conversationId, (lane = new Lane(conversationId, this.laneContext)));
    return lane;
  }

  /**
   * Whether messages sent mid-turn are steered into the running turn, and why not: read per message
   * (config is re-read when its file changes). Off, they wait in line; every turn still runs in a
   * process that can be stopped and relays permission requests.
   */
  steering(): { on: boolean; reason?: string } {
    const cfg = this.settings();
    let state: { on: boolean; reason?: string } = { on: true };
    if ((this.parts.env.RUDDER_STEERING ?? '').toLowerCase() === 'off')
      state = { on: false, reason: 'RUDDER_STEERING=off' };
    else if (!cfg.steering.enabled) state = { on: false, reason: 'steering.enabled is false' };
    if (this.steeringWasOn === true && !state.on)
      this.log.warn({ reason: state.reason }, 'steering turned off: messages sent mid-turn wait in line from now on');
    this.steeringWasOn = state.on;
    this.registry.configure({ maxLive: this.warmCap().maxLive, idleMinutes: cfg.steering.idleMinutes });
    return state;
  }

  /** How many idle agent processes stay warm, and why that many (the config, or the machine's memory at start). */
  warmCap(): { maxLive: number; why: string } {
    return warmCap(this.settings().steering.maxLive, this.parts.memAvailable);
  }

  effectiveMode(conversationId: string): QueueMode {
    const conv = this.store.conversation(conversationId);
    const channelMode = conv
      ? (this.settings().channels as Record<string, { queueMode?: QueueMode } | undefined>)[conv.channel]?.queueMode
      : undefined;
    return (conv?.queueMode as QueueMode | null) ?? channelMode ?? this.settings().steering.mode;
  }

  laneSettings(conversationId: string): LaneSettings {
    const cfg = this.settings();
    const steering = this.steering();
    return {
      mode: this.effectiveMode(conversationId),
      steeringOn: steering.on,
      steeringOffReason: steering.reason,
      collectWindowMs: cfg.steering.collectWindowMs,
      queueCap: cfg.steering.queueCap,
    };
  }

  private channelFor(conversationId: string): { channel: Channel | undefined; key: string } | undefined {
    const conv = this.store.conversation(conversationId);
    return conv ? { channel: this.channels.get(conv.channel), key: conv.key } : undefined;
  }

  /** The running channel and chat key of a conversation. */
  chatOf(conversationId: string): { channel: Channel; key: string } | undefined {
    const t = this.channelFor(conversationId);
    return t?.channel ? { channel: t.channel, key: t.key } : undefined;
  }

  ack(row: MessageRow, kind: AckKind, note?: string): void {
    this.bus.emit(row.conversationId, 'ack', row.id, ackData(kind, note));
    this.channelAck(row, kind, note);
  }

  /** Shows an acknowledgement on the platform (the bus event is logged separately). */
  channelAck(row: MessageRow, kind: AckKind, note?: string): void {
    const target = this.channelFor(row.conversationId);
    if (!target?.channel) return;
    const text = kind === 'steered' ? row.text : note;
    const channel = target.channel;
    // With store.groupCommit the reaction waits for the commit that holds the message.
    this.store.afterCommit(() => {
      channel
        .ack({ conversationKey: target.key, platformMessageId: row.platformMessageId }, kind, text)
        .catch((err: unknown) => {
          this.log.warn(
            { conversationId: row.conversationId, kind, err: (err as Error).message },
            'acknowledgement not shown',
          );
        });
    });
  }

  /** Commits a reply or notice to the outbox and starts its delivery. */
  send(
    conversationId: string,
    kind: 'reply' | 'notice',
    text: string,
    rows: MessageRow[],
    opts: { fromFallback?: boolean } = {},
  ): void {
    this.store.addOutbox({
      conversationId,
      kind,
      messageIds: rows.map((r) => r.id),
      replyTo: rows[0]?.platformMessageId ?? null,
      text,
      fromFallback: opts.fromFallback,
    });
    queueMicrotask(() => this.delivery?.kick(conversationId));
  }

  typing(conversationId: string, on: boolean): void {
    const target = this.channelFor(conversationId);
    target?.channel?.typing?.({ conversationKey: target.key }, on);
  }

  private async fallback(rows: MessageRow[]): Promise<string> {
    const model = this.parts.localModel();
    if (!model)
      throw new RudderError(
        'FALLBACK_UNAVAILABLE',
        'No local model is configured (set fallback.baseURL and fallback.model).',
      );
    return model.answer(rows.map((r) => ({ text: composeAgentText(r), source: sourceOf(r) })));
  }

  private permissionOpened(
    conversationId: string,
    session: AgentSession,
    request: PermissionRequest,
    messageId: string | null,
    turnId: string,
  ): void {
    this.permissions.set(request.requestId, { conversationId, session, request, messageId, turnId });
    this.bus.emit(conversationId, 'permission', messageId, {
      requestId: request.requestId,
      toolName: request.toolName,
      input: request.input,
      description: request.description,
      options: request.options,
    });
    // Chats get the whole request: buttons where the channel has them, else the numbered notice.
    this.prompts.open(
      conversationId,
      request,
      messageId,
      messageId ? (this.store.message(messageId)?.platformMessageId ?? undefined) : undefined,
    );
  }

  pendingPermission(conversationId: string): OpenPermission | undefined {
    return [...this.permissions.values()].reverse().find((p) => p.conversationId === conversationId);
  }

  /**
   * Answers a permission request; false when it is unknown, already answered, withdrawn, or the
   * answer could not reach the agent. Only an answer that reached the agent is announced.
   */
  answerPermission(
    conversationId: string,
    requestId: string,
    allow: boolean,
    optionId?: string,
    by = 'unknown',
  ): boolean {
    const open = this.permissions.get(requestId);
    if (!open || open.conversationId !== conversationId) return false;
    this.permissions.delete(requestId);
    const ok = open.session.answerPermission(requestId, { optionId: optionId ?? (allow ? 'allow' : 'deny') });
    if (!ok) {
      this.log.warn(
        { conversationId, requestId },
        'a permission answer could not reach the agent (its turn or process ended)',
      );
      return false;
    }
    const chosen = optionId ?? (allow ? 'allow' : 'deny');
    const label = open.request.options.find((o) => o.id === chosen)?.label ?? chosen;
    this.steps.permissionAnswered(requestId, { optionId: chosen, label, by });
    this.bus.emit(conversationId, 'permission', open.messageId, { requestId, resolved: chosen, by, delivered: true });
    this.prompts.settle(requestId, { kind: 'answered', optionId: chosen, label, by });
    return true;
  }

  /** The turn ended: its open requests are withdrawn, and the page and chats are told. */
  private withdrawPermissions(turnId: string): void {
    for (const [requestId, open] of this.permissions) {
      if (open.turnId !== turnId) continue;
      this.permissions.delete(requestId);
      this.bus.emit(open.conversationId, 'permission', open.messageId, { requestId, withdrawn: true });
      this.prompts.settle(requestId, { kind: 'withdrawn' });
    }
  }

  /** `by` names who sent the command (an answer to a permission request records it). */
  commandContext(conversationId: string, sentAt: number = Date.now(), by = 'unknown'): CommandContext {
    const lane = this.lane(conversationId);
    // A running turn finishes first; the release happens when it ends.
    const releaseWhenIdle = async (reason: string) => {
      if (lane.busy()) lane.pendingRelease = reason;
      else await this.pool.release(conversationId, reason);
    };
    const projects = new ProjectCommands({
      conversationId,
      projects: this.projects,
      store: this.store,
      busy: () => lane.busy(),
      release: (reason) => this.pool.release(conversationId, reason),
      ownPid: () => this.pool.peek(conversationId)?.pid(),
    });
    return {
      lane,
      sentAt,
      projects,
      setModel: (model) => this.store.setModel(conversationId, model),
      setQueueMode: (mode) => this.store.setQueueMode(conversationId, mode),
      effectiveMode: () => this.effectiveMode(conversationId),
      forgetSession: async () => {
        this.store.setSessionId(conversationId, null);
        const live = this.pool.peek(conversationId);
        // A backend with its own /clear (the TUI) clears in place and persists its new session id.
        if (live?.clearContext && live.state() !== 'stopped') {
          try {
            return await live.clearContext();
          } catch (err) {
            this.log.warn(
              { conversationId, err: (err as Error).message },
              "the agent's own /clear failed: releasing the session instead",
            );
          }
        }
        await this.pool.release(conversationId, 'session cleared by /clear');
        this.store.setSessionId(conversationId, null);
      },
      releaseSession: async (reason) => {
        const live = this.pool.peek(conversationId);
        // /model: a backend with its own /model (the TUI) switches in place, after the running turn.
        if (live?.setModel && live.state() !== 'stopped') {
          const model =
            this.store.conversation(conversationId)?.model ??
            projectAgent(this.settings().agent, this.projects.peek(conversationId)).model;
          void live.setModel(model ?? undefined).catch((err: Error) => {
            this.log.warn(
              { conversationId, err: err.message },
              "the agent's own /model failed: releasing the session instead",
            );
            void releaseWhenIdle(reason);
          });
          return;
        }
        await releaseWhenIdle(reason);
      },
      statusText: () => statusText(this, conversationId, projects),
      describeRunning: () => {
        const turn = this.steps.running(conversationId);
        return turn ? describeTurn(turn, (id) => this.store.message(id)?.text) : undefined;
      },
      answerPermission: (choice) => {
        const open = this.pendingPermission(conversationId);
        if (!open) return undefined;
        const option =
          typeof choice === 'number'
            ? open.request.options[choice - 1]
            : open.request.options.find((o) => o.id === choice);
        if (!option) return `Choose one of: ${open.request.options.map((o, i) => `${i + 1}. ${o.label}`).join(', ')}`;
        const refused = this.prompts.refusal(open.request.requestId, option.id);
        if (refused) return refused;
        const ok = this.answerPermission(
          conversationId,
          open.request.requestId,
          option.id === 'allow',
          option.id === 'allow' || option.id === 'deny' ? undefined : option.id,
          by,
        );
        return ok ? `Answered: ${option.label}.` : 'That request is no longer waiting.';
      },
    };
  }
}
