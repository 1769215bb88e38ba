/**
 * Rows of the event log read back as events, and the steps table's rows as steps: each row's data is
 * parsed with its kind's schema (event-schemas.ts). A row that does not parse (written by an older
 * Rudder in a shape since changed, damaged, or of a kind this Rudder no longer has) is skipped, with
 * one log line naming its seq (a step: its turn and place) and kind: the page never gets it typed as
 * today's shape. No migration is kept: the event log is pruned after a week.
 */
import type { ZodType } from 'zod';
import type { Logger } from '../ops/logger.js';
import type { Store } from '../store/store.js';
import type { EventRow } from '../store/types.js';
import { EVENT_DATA, STEP } from './event-schemas.js';
import type { ConversationEvent as BusEvent } from './events.js';
import type { Step } from './steps/types.js';

export type ReadResult = { ok: true; event: BusEvent } | { ok: false; why: string };

/** The event a row was written from, when its data has its kind's shape; never throws. */
export function readEvent(row: EventRow): ReadResult {
  if (!Object.hasOwn(EVENT_DATA, row.type)) return { ok: false, why: 'unknown kind' };
  const schema: ZodType = EVENT_DATA[row.type];
  const parsed = schema.safeParse(row.data);
  if (!parsed.success)
    return { ok: false, why: parsed.error.issues.map((i) => i.path.join('.') || '(data)').join(', ') };
  const { seq, conversationId, type, messageId, createdAt } = row;
  // The schema of `type` parsed `data`: the pair is one of the union's members.
  return { ok: true, event: { seq, conversationId, type, messageId, data: parsed.data, createdAt } as BusEvent };
}

/** The rows that parse, in order; each one that does not is logged once and left out. */
export function readEvents(rows: EventRow[], log: Logger): BusEvent[] {
  const out: BusEvent[] = [];
  for (const row of rows) {
    const r = readEvent(row);
    if (r.ok) out.push(r.event);
    else
      log.warn(
        { seq: row.seq, kind: row.type, conversationId: row.conversationId, fields: r.why },
        'a stored event does not have the shape of its kind; skipped',
      );
  }
  return out;
}

/**
 * Up to `limit` events after `seq` that parse: fewer only when the log has no more, so a reader paging with it
 * (the event stream's replay) does not stop early at a page of skipped rows.
 */
export function eventsAfter(store: Store, conversationId: string, seq: number, limit: number, log: Logger) {
  const out: BusEvent[] = [];
  let from = seq;
  for (;;) {
    const want = limit - out.length;
    const rows = store.eventsSince(conversationId, from, want);
    out.push(...readEvents(rows, log));
    if (rows.length < want || out.length >= limit) return out;
    from = rows.at(-1)!.seq;
  }
}

/** Each turn's stored steps that parse, in order; each one that does not is logged once and left out. */
export function readSteps(byTurn: Map<string, unknown[]>, log: Logger): Map<string, Step[]> {
  const out = new Map<string, Step[]>();
  for (const [turnId, rows] of byTurn) {
    const steps: Step[] = [];
    for (const [i, row] of rows.entries()) {
      const parsed = STEP.safeParse(row);
      if (parsed.success) steps.push(parsed.data);
      else
        log.warn(
          { turnId, position: i, kind: (row as { kind?: unknown } | null)?.kind },
          'a stored step does not have the shape of its kind; skipped',
        );
    }
    out.set(turnId, steps);
  }
  return out;
}
