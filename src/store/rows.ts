/** Row mapping between the SQLite tables and the types the rest of Rudder uses. */
import type { ConversationSqlRow, EventSqlRow, MessageSqlRow, OutboxSqlRow, TurnSqlRow } from './sql-rows.js';
import type {
  ConversationRow,
  EventRow,
  MessageExtra,
  MessageRow,
  ModelCost,
  OutboxRow,
  ToolCall,
  TurnCost,
  TurnRow,
} from './types.js';

export const json = (v: unknown) => JSON.stringify(v);
const parse = <T>(s: string | null, fallback: T): T => {
  if (!s) return fallback;
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
};

export function toMessage(r: MessageSqlRow): MessageRow {
  return {
    seq: r.seq,
    id: r.id,
    conversationId: r.conversation_id,
    channel: r.channel,
    platformMessageId: r.platform_message_id,
    senderId: r.sender_id,
    text: r.text,
    extra: parse<MessageExtra>(r.extra, {}),
    sentAt: r.sent_at,
    receivedAt: r.received_at,
    state: r.state,
    reason: r.reason,
    wasQueued: !!r.was_queued,
    attempts: r.attempts,
    turnId: r.turn_id,
    retryAt: r.retry_at,
    heldFor: r.held_for,
  };
}

export function toConversation(r: ConversationSqlRow): ConversationRow {
  return {
    id: r.id,
    channel: r.channel,
    key: r.key,
    title: r.title,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    sessionId: r.session_id,
    model: r.model,
    queueMode: r.queue_mode,
    cutoffAt: r.cutoff_at,
    project: r.project ?? null,
    archivedAt: r.archived_at ?? null,
    lastReadSeq: r.last_read_seq ?? 0,
  };
}

export function toOutbox(r: OutboxSqlRow): OutboxRow {
  return {
    seq: r.seq,
    id: r.id,
    conversationId: r.conversation_id,
    kind: r.kind,
    messageIds: parse<string[]>(r.message_ids, []),
    replyTo: r.reply_to,
    text: r.text,
    fromFallback: !!r.from_fallback,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastError: r.last_error,
  };
}

export function toEvent(r: EventSqlRow): EventRow {
  return {
    seq: r.seq,
    conversationId: r.conversation_id,
    type: r.type,
    messageId: r.message_id,
    data: parse(r.data, {}),
    createdAt: r.created_at,
  };
}

export function toTurn(r: TurnSqlRow): TurnRow {
  return {
    id: r.id,
    conversationId: r.conversation_id,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    outcome: r.outcome,
    steered: r.steered,
    inputIds: parse<string[]>(r.input_ids, []),
    sessionId: r.session_id,
    error: r.error,
    tools: parse<ToolCall[]>(r.tools, []),
    project: r.project ?? null,
    cost: costOf(r),
  };
}

/** A turn's usage as stored; null when it ended without a result (no tokens were recorded). */
function costOf(r: TurnSqlRow): TurnCost | null {
  if (r.input_tokens === null || r.input_tokens === undefined) return null;
  return {
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens ?? 0,
    cacheReadTokens: r.cache_read_tokens ?? 0,
    cacheCreationTokens: r.cache_creation_tokens ?? 0,
    costUsd: r.cost_usd,
    models: parse<Record<string, ModelCost> | null>(r.model_usage, null),
    durationMs: r.duration_ms ?? 0,
  };
}
