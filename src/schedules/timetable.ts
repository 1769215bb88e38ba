/**
 * The next slot across every schedule, so ONE timer, armed for the earliest, serves them all and nothing polls.
 * A timetable is a value: each schedule's next slot, computed once when planned and again only when that schedule
 * comes due. Arming the timer is a scan for the earliest (1,000 schedules: microseconds), and a schedule that is
 * not due costs nothing while the process idles.
 *
 * Ordering: `takeDue` decides every due schedule with the same `now` and moves each to its first slot after
 * `now`, so a slot is either in the decision of this wake or armed for a later one, never both and never neither.
 */

import type { CronSchedule } from '../config/schedule-line/cron.js';
import { type CatchUp, catchUp } from './catch-up.js';

/** setTimeout holds at most this many ms (about 24.8 days); a later slot is reached by waking early and re-arming. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface TimedSchedule {
  name: string;
  schedule: Pick<CronSchedule, 'next' | 'previous'>;
  catchUpMinutes: number;
}

export interface Timetable {
  readonly schedules: ReadonlyMap<string, TimedSchedule>;
  /** Each schedule's next slot, epoch ms; a schedule that never runs again is absent. */
  readonly next: ReadonlyMap<string, number>;
}

export interface DueSchedule {
  name: string;
  decision: CatchUp;
}

/** Every schedule's first slot after `now`. */
export function planTimetable(schedules: readonly TimedSchedule[], now: number): Timetable {
  const next = new Map<string, number>();
  for (const s of schedules) {
    const at = s.schedule.next(now);
    if (at !== undefined) next.set(s.name, at);
  }
  return { schedules: new Map(schedules.map((s) => [s.name, s])), next };
}

/** The earliest slot of the table, or undefined when no schedule runs again. */
export function wakeAt(table: Timetable): number | undefined {
  let earliest: number | undefined;
  for (const at of table.next.values()) if (earliest === undefined || at < earliest) earliest = at;
  return earliest;
}

/** The timer's delay for a wake time: never negative, never past what setTimeout holds. */
export function timerDelay(wake: number, now: number): number {
  return Math.min(Math.max(wake - now, 0), MAX_TIMER_MS);
}

/**
 * The schedules due at `now` with the decision for each (a late wake, after the machine slept, gives a catch-up or
 * a missed decision like a start does), and the table moved on. A wake that finds nothing due (early, or the
 * setTimeout cap) returns the table as it was.
 */
export function takeDue(table: Timetable, now: number): { due: DueSchedule[]; table: Timetable } {
  const due: DueSchedule[] = [];
  const next = new Map(table.next);
  for (const [name, at] of table.next) {
    const timed = table.schedules.get(name);
    if (at > now || !timed) continue;
    due.push({ name, decision: catchUp(timed.schedule, at - 1, now, timed.catchUpMinutes) });
    const following = timed.schedule.next(now);
    if (following === undefined) next.delete(name);
    else next.set(name, following);
  }
  return due.length ? { due, table: { schedules: table.schedules, next } } : { due, table };
}
