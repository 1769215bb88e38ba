/** What a lane needs from the gateway around it. */
import type { AgentPool } from '../agents/pool.js';
import type { AgentSession, PermissionRequest } from '../agents/session.js';
import type { AckKind } from '../channels/channel.js';
import type { QueueMode } from '../config/schema.js';
import type { Logger } from '../ops/logger.js';
import type { Store } from '../store/store.js';
import type { MessageRow } from '../store/types.js';
import type { EventBus } from './bus.js';
import type { StepLog } from './steps/step-log.js';

/** Hot settings, read for every message. */
export interface LaneSettings {
  mode: QueueMode;
  steeringOn: boolean;
  /** Why steering is off, for the log line and /status. */
  steeringOffReason?: string;
  collectWindowMs: number;
  queueCap: number;
}

export interface LaneContext {
  store: Store;
  bus: EventBus;
  pool: AgentPool;
  log: Logger;
  /** Every turn's steps, for the web timeline, chat progress and the history API. */
  steps: StepLog;
  settings(conversationId: string): LaneSettings;
  ack(row: MessageRow, kind: AckKind, note?: string): void;
  /** Queues a reply (kind 'reply') or a notice in the outbox and starts its delivery. */
  send(
    conversationId: string,
    kind: 'reply' | 'notice',
    text: string,
    rows: MessageRow[],
    opts?: { fromFallback?: boolean },
  ): void;
  typing(conversationId: string, on: boolean): void;
  /** Answers from the local model; throws when none is configured or it fails. */
  fallback(rows: MessageRow[]): Promise<string>;
  permissionOpened(
    conversationId: string,
    session: AgentSession,
    request: PermissionRequest,
    messageId: string | null,
    turnId: string,
  ): void;
  /** The turn ended: its permission requests can no longer be answered (surfaces withdraw their buttons). */
  withdrawPermissions(turnId: string): void;
  /** True once the gateway is shutting down: interrupted turns stay open for the next start. */
  shuttingDown(): boolean;
}
