/**
 * The invariants of work that starts without a person, read from the store after the gateway stopped and from the
 * mock's request log:
 *   - each slot of the schedule is stored at most once, and each stored run is one message of its own;
 *   - every slot from the first to the pause ran, was skipped and said, or was missed and reported (a missed row
 *     stands for its count of slots, the newest at its slot): exactly once unless missed and reported;
 *   - each acknowledged delivery id is one message, and reached the model once (no request holds two wrapped copies
 *     of it; a crash re-run, said with a ↻ notice, sends its text again on purpose and is left out).
 */
import Database from 'better-sqlite3';
import { readSchedule } from '../../../src/config/schedule-line/line.js';
import { wrappedTexts } from '../mock-anthropic.js';
import type { Violation } from './invariants.js';
import { type Delivery, TICK, TICK_CONV, TICK_CRON } from './jobs.js';

interface FiringRow {
  slot_ms: number;
  state: string;
  missed_count: number | null;
  message_id: string | null;
}

/** `until`: the slots at or before it must be accounted for (the schedule was paused after it). */
export function checkSlots(dbFile: string, until: number): Violation[] {
  const read = readSchedule(TICK_CRON, 'UTC');
  if (!read.ok) throw new Error(read.problem);
  const line = read.schedule;
  const db = new Database(dbFile, { readonly: true });
  try {
    const rows = db
      .prepare('SELECT slot_ms, state, missed_count, message_id FROM schedule_firings WHERE schedule = ?')
      .all(TICK) as FiringRow[];
    const v: Violation[] = [];
    const covered = new Map<number, string>();
    const cover = (slot: number, how: string) => {
      const before = covered.get(slot);
      if (before) v.push({ kind: 'duplicated', detail: `slot ${iso(slot)} of ${TICK} is both ${before} and ${how}` });
      covered.set(slot, how);
    };
    for (const r of rows) {
      if (r.state !== 'missed') {
        cover(r.slot_ms, r.state);
        continue;
      }
      let slot: number | undefined = r.slot_ms;
      for (let i = 0; i < (r.missed_count ?? 1) && slot !== undefined; i++, slot = line.previous(slot))
        cover(slot, 'missed');
    }
    const runs = rows.filter((r) => r.message_id);
    if (new Set(runs.map((r) => r.message_id)).size !== runs.length)
      v.push({ kind: 'duplicated', detail: `two slots of ${TICK} share one message` });
    const missed = rows.filter((r) => r.state === 'missed').length;
    const told = db
      .prepare(
        "SELECT COUNT(*) AS n FROM outbox WHERE conversation_id = ? AND kind = 'notice' AND text LIKE '%missed%'",
      )
      .get(TICK_CONV) as { n: number };
    if (told.n < missed)
      v.push({ kind: 'silent', detail: `${missed} missed row(s) of ${TICK}, but ${told.n} notice(s) say so` });
    const first = Math.min(...covered.keys());
    if (!Number.isFinite(first)) return [...v, { kind: 'lost', detail: `no slot of ${TICK} was ever stored` }];
    for (let slot: number | undefined = first; slot !== undefined && slot <= until; slot = line.next(slot))
      if (!covered.has(slot))
        v.push({ kind: 'lost', detail: `slot ${iso(slot)} of ${TICK} neither ran nor was reported missed` });
    return v;
  } finally {
    db.close();
  }
}

/** Each acknowledged delivery id: one message in the store, and never two copies in one request to the model. */
export function checkDeliveries(
  dbFile: string,
  deliveries: Delivery[],
  requests: Array<{ side: boolean; body: unknown }>,
): Violation[] {
  const db = new Database(dbFile, { readonly: true });
  try {
    const v: Violation[] = [];
    const resent = new Set(
      (
        db.prepare("SELECT message_ids FROM outbox WHERE kind = 'notice' AND text LIKE '↻%'").all() as Array<{
          message_ids: string;
        }>
      ).flatMap((n) => JSON.parse(n.message_ids) as string[]),
    );
    const main = requests.filter((r) => !r.side);
    const byTag = db.prepare('SELECT id FROM messages WHERE text LIKE ?');
    for (const d of deliveries) {
      if (!d.answers.some((s) => s === 202 || s === 200)) continue;
      const ids = (byTag.all(`%tag:${d.tag}`) as Array<{ id: string }>).map((r) => r.id);
      if (ids.length !== 1) {
        const kind = ids.length ? 'duplicated' : 'lost';
        v.push({ kind, detail: `delivery ${d.id} (answers ${d.answers.join(',')}) is ${ids.length} messages` });
        continue;
      }
      if (resent.has(ids[0]!)) continue;
      const mark = new RegExp(`tag:${d.tag}(?![\\w-])`);
      const worst = Math.max(0, ...main.map((r) => wrappedTexts(r as never).filter((t) => mark.test(t)).length));
      if (worst > 1)
        v.push({ kind: 'duplicated', detail: `delivery ${d.id} reached the model ${worst} times in one request` });
    }
    return v;
  } finally {
    db.close();
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
