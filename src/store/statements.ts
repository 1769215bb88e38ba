/** Every SQL statement of the store, prepared once. */
import type Database from 'better-sqlite3';
import type {
  AgentProcessSqlRow,
  ConversationSqlRow,
  EventSqlRow,
  MessageSqlRow,
  OutboxSqlRow,
  StateCountSqlRow,
  TurnSqlRow,
} from './sql-rows.js';
import { OPEN_STATES } from './types.js';

export type Statements = ReturnType<typeof prepareStatements>;
/** A prepared statement whose rows are Row. */
export interface Statement<Row = unknown> extends Database.Statement<unknown[], Row> {}

/** The conversation setters that take (value, updated_at, id). */
export type ConversationSetter = 'convSession' | 'convModel' | 'convMode' | 'convCutoff' | 'convTitle' | 'convArchived';

// A statement's Row is what its SELECT returns (statements that return no rows leave it unknown).
export function prepareStatements(db: Database.Database) {
  const p: Prepare = <Row = unknown>(sql: string): Statement<Row> => db.prepare<unknown[], Row>(sql);
  return {
    ...conversationStatements(p),
    ...messageStatements(p),
    ...outboxStatements(p),
    ...eventStatements(p),
    ...turnStatements(p),
    ...processStatements(p),
  };
}

type Prepare = <Row = unknown>(sql: string) => Statement<Row>;

/** conversations: a row, the lists, and a setter per column. */
function conversationStatements(p: Prepare) {
  return {
    convGet: p<ConversationSqlRow>('SELECT * FROM conversations WHERE id = ?'),
    convInsert: p(
      'INSERT OR IGNORE INTO conversations (id, channel, key, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    convList: p<ConversationSqlRow>('SELECT * FROM conversations WHERE channel = ? ORDER BY updated_at DESC LIMIT ?'),
    convListAll: p<ConversationSqlRow>('SELECT * FROM conversations ORDER BY updated_at DESC LIMIT ?'),
    convBySession: p<ConversationSqlRow>('SELECT * FROM conversations WHERE session_id = ?'),
    convSession: p('UPDATE conversations SET session_id = ?, updated_at = ? WHERE id = ?'),
    convModel: p('UPDATE conversations SET model = ?, updated_at = ? WHERE id = ?'),
    convMode: p('UPDATE conversations SET queue_mode = ?, updated_at = ? WHERE id = ?'),
    convProject: p('UPDATE conversations SET project = ?, session_id = ?, updated_at = ? WHERE id = ?'),
    convCutoff: p('UPDATE conversations SET cutoff_at = ?, updated_at = ? WHERE id = ?'),
    convTitle: p('UPDATE conversations SET title = ?, updated_at = ? WHERE id = ?'),
    convArchived: p('UPDATE conversations SET archived_at = ?, updated_at = ? WHERE id = ?'),
    convRead: p('UPDATE conversations SET last_read_seq = MAX(last_read_seq, ?) WHERE id = ?'),
  };
}

/** messages: insert once per platform id, the open ones, the fields that change outside the states. */
function messageStatements(p: Prepare) {
  return {
    msgInsert: p(
      `INSERT OR IGNORE INTO messages (id, conversation_id, channel, platform_message_id, sender_id, text, ` +
        `extra, sent_at, received_at, state, reason, updated_at)
                VALUES (@id, @conversationId, @channel, @platformMessageId, @senderId, @text, @extra, ` +
        `@sentAt, @receivedAt, @state, @reason, @receivedAt)`,
    ),
    msgByPlatform: p<MessageSqlRow>('SELECT * FROM messages WHERE channel = ? AND platform_message_id = ?'),
    msgGet: p<MessageSqlRow>('SELECT * FROM messages WHERE id = ?'),
    msgUntaken: p('UPDATE messages SET attempts = MAX(attempts - 1, 0), updated_at = ? WHERE id = ?'),
    msgText: p('UPDATE messages SET text = ?, updated_at = ? WHERE id = ?'),
    msgExtra: p('UPDATE messages SET extra = ?, updated_at = ? WHERE id = ?'),
    msgOpen: p<MessageSqlRow>(
      `SELECT * FROM messages WHERE state IN (${OPEN_STATES.map(() => '?').join(',')}) ORDER BY seq`,
    ),
    msgTurn: p('UPDATE messages SET turn_id = ?, updated_at = ? WHERE id = ?'),
    msgDeferred: p<MessageSqlRow>(
      "SELECT * FROM messages WHERE state = 'deferred' AND conversation_id = ? ORDER BY seq",
    ),
    msgByConv: p<MessageSqlRow>('SELECT * FROM messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?'),
    msgCountByState: p<StateCountSqlRow>('SELECT state, COUNT(*) AS n FROM messages GROUP BY state'),
  };
}

/** outbox: what is owed, its attempts, delivered once. */
function outboxStatements(p: Prepare) {
  return {
    outInsert: p(`INSERT INTO outbox (id, conversation_id, kind, message_ids, reply_to, text, from_fallback, created_at)
                VALUES (@id, @conversationId, @kind, @messageIds, @replyTo, @text, @fromFallback, @createdAt)`),
    outOwed: p<OutboxSqlRow>('SELECT * FROM outbox WHERE delivered_at IS NULL ORDER BY seq LIMIT ?'),
    outOwedFor: p<OutboxSqlRow>('SELECT * FROM outbox WHERE delivered_at IS NULL AND conversation_id = ? ORDER BY seq'),
    outGet: p<OutboxSqlRow>('SELECT * FROM outbox WHERE id = ?'),
    outDelivered: p('UPDATE outbox SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL'),
    outAttempt: p('UPDATE outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE id = ?'),
    outToNotice: p("UPDATE outbox SET kind = 'notice', text = ? WHERE id = ? AND delivered_at IS NULL"),
    outByConv: p<OutboxSqlRow>('SELECT * FROM outbox WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?'),
    outOwedCount: p<{ n: number }>('SELECT COUNT(*) AS n FROM outbox WHERE delivered_at IS NULL'),
  };
}

/** events: the log the page replays, pruned after a week (a review action never). */
function eventStatements(p: Prepare) {
  return {
    evInsert: p(
      'INSERT OR IGNORE INTO events (conversation_id, type, message_id, outbox_id, data, created_at) VALUES ' +
        '(?, ?, ?, ?, ?, ?)',
    ),
    evSince: p<EventSqlRow>('SELECT * FROM events WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?'),
    evLast: p<{ seq: number }>('SELECT seq FROM events WHERE conversation_id = ? ORDER BY seq DESC LIMIT 1'),
    // A review action (commit, merge, ...) is the conversation's history itself: never pruned.
    evPrune: p("DELETE FROM events WHERE created_at < ? AND type != 'review'"),
  };
}

/** turns and their steps: a turn's start, end, cost and tools. */
function turnStatements(p: Prepare) {
  return {
    turnStart: p(
      'INSERT OR IGNORE INTO turns (id, conversation_id, started_at, input_ids, session_id, project) VALUES ' +
        '(?, ?, ?, ?, ?, ?)',
    ),
    turnDiscard: p('DELETE FROM turns WHERE id = ? AND outcome IS NULL'),
    turnEnd: p(
      'UPDATE turns SET ended_at = ?, outcome = ?, steered = ?, input_ids = ?, session_id = ?, error = ? WHERE id = ?',
    ),
    turnCost: p(
      'UPDATE turns SET input_tokens = ?, output_tokens = ?, cache_read_tokens = ?, cache_creation_tokens = ?, ' +
        'cost_usd = ?, model_usage = ?, duration_ms = ? WHERE id = ?',
    ),
    turnsOf: p<TurnSqlRow>(
      'SELECT * FROM turns WHERE conversation_id = ? AND started_at < ? ORDER BY started_at DESC, rowid DESC LIMIT ?',
    ),
    stepPut: p(
      'INSERT OR REPLACE INTO steps (turn_id, idx, conversation_id, kind, data, at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    turnGet: p<TurnSqlRow>('SELECT * FROM turns WHERE id = ?'),
    turnTool: p(
      `UPDATE turns SET tools = json_insert(coalesce(tools, '[]'), '$[#]', json(?)) WHERE id = ? AND ` +
        `json_array_length(coalesce(tools, '[]')) < ?`,
    ),
  };
}

/** agent_processes: every agent's pid, for the sweep after a crash. */
function processStatements(p: Prepare) {
  return {
    procAdd: p('INSERT OR REPLACE INTO agent_processes (pid, conversation_id, started_at) VALUES (?, ?, ?)'),
    procRemove: p('DELETE FROM agent_processes WHERE pid = ?'),
    procAll: p<AgentProcessSqlRow>('SELECT * FROM agent_processes'),
  };
}
