/**
 * The rows SQLite returns for each table (`SELECT *`), column for column as migrations.ts declares
 * them; rows.ts turns them into the types of types.ts. Booleans are 0/1 and JSON columns are text.
 */
import type { EventType, HeldFor, MessageState, OutboxKind } from './types.js';

export interface MessageSqlRow {
  seq: number;
  id: string;
  conversation_id: string;
  channel: string;
  platform_message_id: string;
  sender_id: string;
  text: string;
  /** JSON: MessageExtra. */
  extra: string | null;
  sent_at: number | null;
  received_at: number;
  state: MessageState;
  reason: string | null;
  was_queued: number;
  attempts: number;
  turn_id: string | null;
  retry_at: number | null;
  held_for: HeldFor | null;
  updated_at: number;
}

export interface ConversationSqlRow {
  id: string;
  channel: string;
  key: string;
  title: string | null;
  created_at: number;
  updated_at: number;
  session_id: string | null;
  model: string | null;
  queue_mode: string | null;
  cutoff_at: number | null;
  project: string | null;
  archived_at: number | null;
  last_read_seq: number;
}

export interface OutboxSqlRow {
  seq: number;
  id: string;
  conversation_id: string;
  kind: OutboxKind;
  /** JSON: string[]. */
  message_ids: string;
  reply_to: string | null;
  text: string;
  from_fallback: number;
  created_at: number;
  delivered_at: number | null;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
}

export interface EventSqlRow {
  seq: number;
  conversation_id: string;
  type: EventType;
  message_id: string | null;
  outbox_id: string | null;
  /** JSON: Record<string, unknown>. */
  data: string;
  created_at: number;
}

export interface TurnSqlRow {
  id: string;
  conversation_id: string;
  started_at: number;
  ended_at: number | null;
  outcome: string | null;
  steered: number;
  /** JSON: string[]. */
  input_ids: string;
  session_id: string | null;
  error: string | null;
  /** JSON: ToolCall[]; null until the turn starts a tool. */
  tools: string | null;
  project: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_creation_tokens: number | null;
  /** NULL: the backend reports no cost (or the turn ended without a result). */
  cost_usd: number | null;
  /** JSON: Record<string, ModelCost>. */
  model_usage: string | null;
  duration_ms: number | null;
}

/** A sum over turns (store/spend.ts). */
export interface SpendSqlRow {
  usd: number | null;
  turns: number;
  without_cost: number;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_creation_tokens: number | null;
}

export interface BudgetDaySqlRow {
  project: string;
  day: string;
  daily_usd: number;
  set_by: string | null;
  set_at: number;
}

export interface AgentProcessSqlRow {
  pid: number;
  conversation_id: string;
  started_at: number;
}

export interface ConversationProjectSqlRow {
  conversation_id: string;
  project: string;
  session_id: string | null;
  worktree: string | null;
  branch: string | null;
  updated_at: number;
}

/** `SELECT state, COUNT(*) AS n FROM messages GROUP BY state`. */
export interface StateCountSqlRow {
  state: MessageState;
  n: number;
}
