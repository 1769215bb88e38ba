/**
 * The conversations' lanes and the settings they run by: the queue mode (the conversation's own,
 * its channel's, or the default), whether steering is on, and the warm cap. The settings follow the
 * live config: a re-read that changes them applies here at once (config/load.ts onChange).
 */
import type { AgentPool } from '../../agents/pool.js';
import { type SessionRegistry, warmCap } from '../../agents/registry.js';
import type { LiveConfig } from '../../config/load.js';
import type { Config, QueueMode } from '../../config/schema.js';
import { RudderError } from '../../errors.js';
import { LocalModel } from '../../fallback/local-model.js';
import type { Logger } from '../../ops/logger.js';
import type { Store } from '../../store/store.js';
import type { MessageRow } from '../../store/types.js';
import type { Budgets } from '../budget/budgets.js';
import type { EventBus } from '../bus.js';
import { composeAgentText, sourceOf } from '../lane/agent-text.js';
import type { LaneAlerts, LaneDeps, LaneSettings } from '../lane/deps.js';
import { Lane } from '../lane/lane.js';
import type { PermissionDesk } from '../permissions/desk.js';
import type { Replies } from '../replies/replies.js';
import type { StepLog } from '../steps/step-log.js';

export interface ConversationsDeps {
  config: LiveConfig;
  store: Store;
  bus: EventBus;
  registry: SessionRegistry;
  pool: AgentPool;
  steps: StepLog;
  replies: Replies;
  desk: PermissionDesk;
  /** What a person not looking should still hear of (the notifier). */
  alerts: LaneAlerts;
  log: Logger;
  env: NodeJS.ProcessEnv;
  /** MemAvailable at start, for the default warm cap. */
  memAvailable: number | undefined;
  /** The review action running on a conversation's tree (the review desk): its turns wait for it. */
  reviewing(conversationId: string): string | undefined;
  /** The agent a conversation runs on, as the person reads it (its project's backend). */
  agentName(conversationId: string): string;
  /** Each project's daily budget: asked before every new turn. */
  budgets: Budgets;
}

export interface SteeringState {
  on: boolean;
  reason?: string;
}

export class Conversations {
  private readonly byId = new Map<string, Lane>();
  private readonly laneDeps: LaneDeps;
  private steeringState: SteeringState;
  private shutting = false;
  private localModel: { key: string; model: LocalModel } | undefined;

  constructor(private readonly d: ConversationsDeps) {
    this.laneDeps = {
      store: d.store,
      bus: d.bus,
      pool: d.pool,
      log: d.log,
      steps: d.steps,
      replies: d.replies,
      desk: d.desk,
      alerts: d.alerts,
      settings: (id) => this.settings(id),
      fallback: (rows) => this.fallback(rows),
      shuttingDown: () => this.shutting,
      reviewing: (id) => d.reviewing(id),
      budgetSpent: (id) => d.budgets.check(id),
      projectOf: (id) => d.budgets.projectOf(id),
    };
    this.steeringState = this.readSteering(d.config.current());
    this.applyLimits(d.config.current());
    d.config.onChange((cfg) => this.configChanged(cfg));
  }

  lane(conversationId: string): Lane {
    let lane = this.byId.get(conversationId);
    if (!lane) this.byId.set(conversationId, (lane = new Lane(conversationId, this.laneDeps)));
    return lane;
  }

  /** The lane when one exists (it is made by the first message). */
  peek(conversationId: string): Lane | undefined {
    return this.byId.get(conversationId);
  }

  lanes(): Lane[] {
    return [...this.byId.values()];
  }

  /**
   * A project's budget was raised: its lanes held by the budget put their messages back in line, in order; each
   * asks the budget again before it runs. Returns how many messages were held.
   */
  releaseBudget(project: string): number {
    let n = 0;
    for (const lane of this.lanes())
      if (lane.snapshot().held?.why === 'budget' && this.d.budgets.projectOf(lane.conversationId) === project)
        n += lane.resume('the daily budget was raised');
    return n;
  }

  /** Any turn running or starting (the shutdown drain waits for these). */
  anyBusy(): boolean {
    return this.lanes().some((l) => l.busy());
  }

  markShuttingDown(): void {
    this.shutting = true;
  }

  shuttingDown(): boolean {
    return this.shutting;
  }

  /**
   * Whether messages sent mid-turn are steered into the running turn, and why not. Off, they wait
   * in line; every turn still runs in a process that can be stopped and relays permission requests.
   */
  steering(): SteeringState {
    this.d.config.current(); // a changed file is re-read (at most every 250 ms) and applied through onChange
    return this.steeringState;
  }

  /** How many idle agent processes stay warm, and why that many (the config, or the machine's memory at start). */
  warmCap(): { maxLive: number; why: string } {
    return warmCap(this.d.config.current().steering.maxLive, this.d.memAvailable);
  }

  effectiveMode(conversationId: string): QueueMode {
    const cfg = this.d.config.current();
    const conv = this.d.store.conversation(conversationId);
    const channelMode = conv
      ? (cfg.channels as Record<string, { queueMode?: QueueMode } | undefined>)[conv.channel]?.queueMode
      : undefined;
    return (conv?.queueMode as QueueMode | null) ?? channelMode ?? cfg.steering.mode;
  }

  /** Hot settings, read for every message. */
  settings(conversationId: string): LaneSettings {
    const steering = this.steering();
    const cfg = this.d.config.current();
    return {
      mode: this.effectiveMode(conversationId),
      steeringOn: steering.on,
      steeringOffReason: steering.reason,
      collectWindowMs: cfg.steering.collectWindowMs,
      queueCap: cfg.steering.queueCap,
      agent: this.d.agentName(conversationId),
    };
  }

  dispose(): void {
    for (const l of this.byId.values()) l.dispose();
  }

  private configChanged(cfg: Config): void {
    const next = this.readSteering(cfg);
    if (this.steeringState.on && !next.on)
      this.d.log.warn({ reason: next.reason }, 'steering turned off: messages sent mid-turn wait in line from now on');
    this.steeringState = next;
    this.applyLimits(cfg);
  }

  private readSteering(cfg: Config): SteeringState {
    if ((this.d.env.RUDDER_STEERING ?? '').toLowerCase() === 'off') return { on: false, reason: 'RUDDER_STEERING=off' };
    if (!cfg.steering.enabled) return { on: false, reason: 'steering.enabled is false' };
    return { on: true };
  }

  private applyLimits(cfg: Config): void {
    this.d.registry.configure({
      maxLive: warmCap(cfg.steering.maxLive, this.d.memAvailable).maxLive,
      idleMinutes: cfg.steering.idleMinutes,
    });
  }

  /** The local model answers while the agent is rate limited (fallback.*, read when it is needed). */
  private async fallback(rows: MessageRow[]): Promise<string> {
    const f = this.d.config.current().fallback;
    if (!f)
      throw new RudderError(
        'FALLBACK_UNAVAILABLE',
        'No local model is configured (set fallback.baseURL and fallback.model).',
      );
    const key = JSON.stringify(f);
    if (this.localModel?.key !== key) this.localModel = { key, model: new LocalModel(f) };
    return this.localModel.model.answer(rows.map((r) => ({ text: composeAgentText(r), source: sourceOf(r) })));
  }
}
