/**
 * The slots of schedules, one row per (schedule, slot), stored before the slot runs: in the transaction of the run's
 * message, or on its own for a slot that does not run (skipped, missed). The primary key is what makes a slot fire
 * at most once whatever restarts, `kill -9`s or late timers happen. How a run that got a message ended is that
 * message's own state (answered, failed, stopped...), read with it; only what the message cannot say is a state
 * here: quiet (the heartbeat said only its quiet word), timed out (stopped by its timeoutMinutes).
 */
import type { Db } from './db.js';
import { OPEN_STATES } from './types.js';

export type FiringState = 'running' | 'quiet' | 'skipped' | 'missed' | 'timed_out';

/** How a slot ended, as the history shows it. */
export type RunOutcome = 'running' | 'ran' | 'quiet' | 'skipped' | 'missed' | 'timed_out' | 'failed' | 'stopped';

export interface NewFiring {
  schedule: string;
  slot: number;
  state: FiringState;
  missedCount?: number;
  messageId?: string;
  conversationId?: string;
  startedAt: number;
  endedAt?: number;
}

export interface FiringRow {
  schedule: string;
  /** The slot, epoch ms. */
  slot: number;
  outcome: RunOutcome;
  missedCount: number | null;
  messageId: string | null;
  conversationId: string | null;
  startedAt: number;
  /** When it ended; null while it runs. */
  endedAt: number | null;
  /** What the run's turn cost (null: none yet, or the backend reports none). */
  costUsd: number | null;
  /** Why it failed or stopped, in the message's words. */
  reason: string | null;
}

interface SqlRow {
  schedule: string;
  slot_ms: number;
  state: FiringState;
  missed_count: number | null;
  message_id: string | null;
  conversation_id: string | null;
  started_at: number;
  ended_at: number | null;
  message_state: string | null;
  message_updated_at: number | null;
  message_reason: string | null;
  cost_usd: number | null;
}

const ANSWERED = new Set(['answered', 'steered', 'merged']);
const OPEN = new Set<string>(OPEN_STATES);

/** A running firing's outcome is its message's. */
function outcomeOf(r: SqlRow): RunOutcome {
  if (r.state !== 'running') return r.state;
  const m = r.message_state;
  if (m === null) return 'failed';
  if (OPEN.has(m)) return 'running';
  if (ANSWERED.has(m)) return 'ran';
  return m === 'stopped' ? 'stopped' : 'failed';
}

function toRow(r: SqlRow): FiringRow {
  const outcome = outcomeOf(r);
  const done = outcome !== 'running';
  return {
    schedule: r.schedule,
    slot: r.slot_ms,
    outcome,
    missedCount: r.missed_count,
    messageId: r.message_id,
    conversationId: r.conversation_id,
    startedAt: r.started_at,
    endedAt: done ? (r.ended_at ?? r.message_updated_at ?? r.started_at) : null,
    costUsd: r.cost_usd,
    reason: outcome === 'failed' || outcome === 'stopped' ? r.message_reason : null,
  };
}

const SELECT = `SELECT f.*, m.state AS message_state, m.updated_at AS message_updated_at, m.reason AS message_reason,
    t.cost_usd AS cost_usd
  FROM schedule_firings f LEFT JOIN messages m ON m.id = f.message_id LEFT JOIN turns t ON t.id = m.turn_id`;

export class ScheduleFirings {
  private readonly s;

  constructor(db: Db) {
    const p = (sql: string) => db.prepare<unknown[], SqlRow>(sql);
    const open = OPEN_STATES.map((st) => `'${st}'`).join(', ');
    this.s = {
      insert: db.prepare(
        `INSERT OR IGNORE INTO schedule_firings
           (schedule, slot_ms, state, missed_count, message_id, conversation_id, started_at, ended_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      newest: db.prepare<[string], { slot: number | null }>(
        'SELECT MAX(slot_ms) AS slot FROM schedule_firings WHERE schedule = ?',
      ),
      lastRun: p(`${SELECT} WHERE f.schedule = ? AND f.message_id IS NOT NULL ORDER BY f.slot_ms DESC LIMIT 1`),
      byMessage: p(`${SELECT} WHERE f.message_id = ?`),
      get: p(`${SELECT} WHERE f.schedule = ? AND f.slot_ms = ?`),
      history: p(`${SELECT} WHERE f.schedule = ? AND f.slot_ms < ? ORDER BY f.slot_ms DESC LIMIT ?`),
      open: p(`${SELECT} WHERE f.state = 'running' AND m.state IN (${open})`),
      problem: p(
        `${SELECT} WHERE f.schedule = ? AND f.slot_ms >= ? AND (f.state IN ('missed', 'timed_out') OR
           (f.state = 'running' AND m.state IN ('failed', 'refused', 'withdrawn'))) ORDER BY f.slot_ms DESC LIMIT 1`,
      ),
      end: db.prepare(
        "UPDATE schedule_firings SET state = ?, ended_at = ? WHERE schedule = ? AND slot_ms = ? AND state = 'running'",
      ),
      forget: db.prepare('DELETE FROM schedule_firings WHERE schedule = ?'),
      unwatch: db.prepare('DELETE FROM schedule_watch WHERE schedule = ?'),
      watched: db.prepare<[string], { line: string; since: number }>(
        'SELECT line, since FROM schedule_watch WHERE schedule = ?',
      ),
      watch: db.prepare(
        `INSERT INTO schedule_watch (schedule, line, since) VALUES (?, ?, ?)
           ON CONFLICT (schedule) DO UPDATE SET line = excluded.line, since = excluded.since`,
      ),
      prune: db.prepare(
        `DELETE FROM schedule_firings WHERE slot_ms < ? AND slot_ms <
           (SELECT MAX(slot_ms) FROM schedule_firings n WHERE n.schedule = schedule_firings.schedule)`,
      ),
    };
  }

  /** Stores a slot; false when it was stored already (it fired, was skipped or was missed before). */
  insert(f: NewFiring): boolean {
    const info = this.s.insert.run(
      f.schedule,
      f.slot,
      f.state,
      f.missedCount ?? null,
      f.messageId ?? null,
      f.conversationId ?? null,
      f.startedAt,
      f.endedAt ?? null,
    );
    return info.changes > 0;
  }

  /** The newest slot stored for a schedule: catch-up starts after it. */
  newestSlot(schedule: string): number | undefined {
    return this.s.newest.get(schedule)?.slot ?? undefined;
  }

  /** The newest slot of a schedule that ran (or runs): a new slot is skipped while it runs. */
  lastRun(schedule: string): FiringRow | undefined {
    const r = this.s.lastRun.get(schedule);
    return r ? toRow(r) : undefined;
  }

  /** The slot whose run is this message, if it is one. */
  byMessage(messageId: string): FiringRow | undefined {
    const r = this.s.byMessage.get(messageId);
    return r ? toRow(r) : undefined;
  }

  get(schedule: string, slot: number): FiringRow | undefined {
    const r = this.s.get.get(schedule, slot);
    return r ? toRow(r) : undefined;
  }

  /** A schedule's slots, newest first, before `beforeSlot` when given. */
  history(schedule: string, limit: number, beforeSlot = Number.MAX_SAFE_INTEGER): FiringRow[] {
    return this.s.history.all(schedule, beforeSlot, limit).map(toRow);
  }

  /** Every run whose message is still open (after a restart, their timeouts are armed again). */
  open(): FiringRow[] {
    return this.s.open.all().map(toRow);
  }

  /** The newest slot since `since` (epoch ms) that was missed, failed or timed out: the status shows it. */
  lastProblem(schedule: string, since: number): FiringRow | undefined {
    const r = this.s.problem.get(schedule, since);
    return r ? toRow(r) : undefined;
  }

  /** A running slot ends as quiet or timed out (what its message cannot say); false when it had ended already. */
  end(schedule: string, slot: number, state: 'quiet' | 'timed_out', at = Date.now()): boolean {
    return this.s.end.run(state, at, schedule, slot).changes > 0;
  }

  /** Slots older than `before` go, but each schedule's newest (catch-up starts after it); returns how many. */
  prune(before: number): number {
    return this.s.prune.run(before).changes;
  }

  /**
   * Since when the schedule's time has been kept with this line (cron and zone): `now` when the line changes or
   * the schedule is new; no slot before it is owed. A schedule with slots stored before this record existed has
   * been kept since its newest one.
   */
  watch(schedule: string, line: string, now: number): number {
    const row = this.s.watched.get(schedule);
    if (row?.line === line) return row.since;
    const since = row ? now : (this.newestSlot(schedule) ?? now);
    this.s.watch.run(schedule, line, since);
    return since;
  }

  /** A removed schedule's slots go with it (a new schedule of the same name starts afresh). */
  forget(schedule: string): void {
    this.s.forget.run(schedule);
    this.s.unwatch.run(schedule);
  }
}
