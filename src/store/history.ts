/**
 * Read-only queries for a conversation's history as the web app pages through it: a page is a
 * run of messages (by seq), and the turns and replies that fall in the same stretch of time.
 * Acks and review actions come from the event log while it holds them (it is pruned after a week), as
 * rows: the gateway parses their data (gateway/stored-events.ts).
 */
import type { Db } from './db.js';
import { toEvent, toMessage, toOutbox, toTurn } from './rows.js';
import type { EventSqlRow, MessageSqlRow, OutboxSqlRow, TurnSqlRow } from './sql-rows.js';
import type { ConversationActivity, EventRow, MessageRow, OutboxRow, TurnRow } from './types.js';

export class HistoryQueries {
  private readonly lastEvent;
  private readonly lastReply;
  private readonly firstText;
  private readonly messagePage;
  private readonly repliesBetween;
  private readonly turnsInWindow;
  private readonly receivedAtOf;
  private readonly reviewsBetween;

  constructor(private readonly db: Db) {
    this.lastEvent = db.prepare(
      'SELECT seq, created_at FROM events WHERE conversation_id = ? ORDER BY seq DESC LIMIT 1',
    );
    this.lastReply = db.prepare(
      "SELECT seq FROM events WHERE conversation_id = ? AND type = 'reply' ORDER BY seq DESC LIMIT 1",
    );
    this.firstText = db.prepare(
      "SELECT text FROM messages WHERE conversation_id = ? AND state NOT IN ('command', 'refused') ORDER BY " +
        'seq LIMIT 1',
    );
    this.messagePage = db.prepare<unknown[], MessageSqlRow>(
      'SELECT * FROM messages WHERE conversation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
    );
    this.repliesBetween = db.prepare<unknown[], OutboxSqlRow>(
      'SELECT * FROM outbox WHERE conversation_id = ? AND created_at >= ? AND created_at < ? AND ' +
        "delivered_at IS NOT NULL AND kind != 'voice' ORDER BY seq",
    );
    this.turnsInWindow = db.prepare<unknown[], TurnSqlRow>(
      'SELECT * FROM turns WHERE conversation_id = ? AND started_at >= ? AND started_at < ? ORDER BY started_at, rowid',
    );
    this.receivedAtOf = db.prepare('SELECT received_at FROM messages WHERE conversation_id = ? AND seq = ?');
    this.reviewsBetween = db.prepare<unknown[], EventSqlRow>(
      "SELECT * FROM events WHERE conversation_id = ? AND type = 'review' AND created_at >= ? " +
        'AND created_at < ? ORDER BY seq',
    );
  }

  activity(conversationId: string): ConversationActivity {
    const last = this.lastEvent.get(conversationId) as { seq: number; created_at: number } | undefined;
    const reply = this.lastReply.get(conversationId) as { seq: number } | undefined;
    const first = this.firstText.get(conversationId) as { text: string } | undefined;
    return {
      lastEventSeq: last?.seq ?? 0,
      lastActivityAt: last?.created_at ?? null,
      lastReplySeq: reply?.seq ?? 0,
      firstText: first?.text ?? null,
    };
  }

  /** Up to `limit` messages before seq `before` (all when absent), oldest first, and whether older ones exist. */
  messages(conversationId: string, before: number | undefined, limit: number): { rows: MessageRow[]; more: boolean } {
    const rows = this.messagePage.all(conversationId, before ?? Number.MAX_SAFE_INTEGER, limit + 1).map(toMessage);
    const more = rows.length > limit;
    return { rows: rows.slice(0, limit).reverse(), more };
  }

  /** When the message with this seq arrived (a page boundary). */
  receivedAt(conversationId: string, seq: number): number | undefined {
    return (this.receivedAtOf.get(conversationId, seq) as { received_at: number } | undefined)?.received_at;
  }

  /** Delivered replies and notices created in [from, to). */
  replies(conversationId: string, from: number, to: number): OutboxRow[] {
    return this.repliesBetween.all(conversationId, from, to).map(toOutbox);
  }

  /** The review actions (commit, merge, ...) recorded in [from, to), oldest first. */
  reviews(conversationId: string, from: number, to: number): EventRow[] {
    return this.reviewsBetween.all(conversationId, from, to).map(toEvent);
  }

  /** Turns started in [from, to), oldest first. */
  turns(conversationId: string, from: number, to: number): TurnRow[] {
    return this.turnsInWindow.all(conversationId, from, to).map(toTurn);
  }

  /** The ack events of these messages, in order, by message id. */
  acks(messageIds: string[]): Map<string, EventRow[]> {
    const out = new Map<string, EventRow[]>();
    for (let i = 0; i < messageIds.length; i += 500) {
      const ids = messageIds.slice(i, i + 500);
      const rows = this.db
        .prepare<unknown[], EventSqlRow>(
          `SELECT * FROM events WHERE type = 'ack' AND message_id IN (${ids.map(() => '?').join(',')}) ORDER BY seq`,
        )
        .all(...ids);
      for (const r of rows) {
        const list = out.get(r.message_id!) ?? [];
        list.push(toEvent(r));
        out.set(r.message_id!, list);
      }
    }
    return out;
  }
}
