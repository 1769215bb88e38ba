/** What a lane needs from the gateway around it, and the settings it reads for every message. */
import type { AgentPool } from '../../agents/pool.js';
import type { QueueMode } from '../../config/schema.js';
import type { Logger } from '../../ops/logger.js';
import type { Store } from '../../store/store.js';
import type { MessageRow } from '../../store/types.js';
import type { BudgetState } from '../budget/budgets.js';
import type { EventBus } from '../bus.js';
import type { PermissionDesk } from '../permissions/desk.js';
import type { Replies } from '../replies/replies.js';
import type { StepLog } from '../steps/step-log.js';

/** Hot settings, read for every message. */
export interface LaneSettings {
  mode: QueueMode;
  steeringOn: boolean;
  /** Why steering is off, for the log line and /status. */
  steeringOffReason?: string;
  collectWindowMs: number;
  queueCap: number;
  /** The agent the conversation runs on, as the person reads it ("Claude", "Codex"). */
  agent: string;
}

/** What the person should hear of even when they are not looking (the notifier pushes it). */
export interface LaneAlerts {
  /** Messages failed for good (after any re-run), with the text the person was sent. */
  failed(conversationId: string, text: string): void;
  /** A rate limit reset: these held messages run again now. */
  rateLimitReset(conversationId: string, inputIds: string[]): void;
}

export interface LaneDeps {
  store: Store;
  bus: EventBus;
  pool: AgentPool;
  log: Logger;
  /** Every turn's steps, for the web timeline, chat progress and the history API. */
  steps: StepLog;
  /** Replies and notices (the outbox), acks and the typing indicator. */
  replies: Replies;
  /** Permission requests a turn opens; its end withdraws them. */
  desk: PermissionDesk;
  alerts: LaneAlerts;
  settings(conversationId: string): LaneSettings;
  /** Answers from the local model; throws when none is configured or it fails. */
  fallback(rows: MessageRow[]): Promise<string>;
  /** True once the gateway is shutting down: interrupted turns stay open for the next start. */
  shuttingDown(): boolean;
  /** The review action (commit, merge, ...) running on this conversation's tree now: no turn starts meanwhile. */
  reviewing(conversationId: string): string | undefined;
  /** The project a conversation's turns count in (for their cost). */
  projectOf(conversationId: string): string;
  /** Asked before each new turn: the budget state when the conversation's project spent its daily budget. */
  budgetSpent(conversationId: string): BudgetState | undefined;
}
