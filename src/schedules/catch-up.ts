/**
 * What to do with the slots of one schedule that came due between the last slot the store holds for it and now:
 * at start (Rudder was down), and when the timer fires late (the machine slept). One rule for both:
 *   - the newest slot runs once, if it is younger than catchUpMinutes (or within the on-time grace);
 *   - every other slot, and the newest when it is too old, is missed: recorded once and the target told once.
 * A schedule never fired before catches up from when Rudder began keeping its time with its present line.
 */

import type { CronSchedule } from '../config/schedule-line/cron.js';
import { formatLocal } from '../config/schedule-line/zone.js';
import type { ErrorCode } from '../errors.js';

/** A timer that fires this late is still on time, whatever catchUpMinutes says (a busy event loop, a slow disk). */
export const ON_TIME_GRACE_MS = 60_000;

/** Missed slots are counted up to here ("50 or more"): each count costs a croner step, and the notice needs no more. */
export const MISSED_COUNT_CAP = 50;

export interface MissedSlots {
  /** How many, up to MISSED_COUNT_CAP. */
  count: number;
  /** More than `count` were missed. */
  capped: boolean;
  /** Epoch ms of the oldest and the newest missed slot. */
  oldest: number;
  newest: number;
}

export interface CatchUp {
  /** The slot to run now (epoch ms): the newest due one, when it is young enough. */
  run?: number;
  /** The slots that will not run. */
  missed?: MissedSlots;
}

/** How many slots lie in [from, to], both slots of the schedule, counted up to the cap. */
function countSlots(
  schedule: Pick<CronSchedule, 'next'>,
  from: number,
  to: number,
): { count: number; capped: boolean } {
  let count = 1;
  for (let at = schedule.next(from); at !== undefined && at <= to; at = schedule.next(at)) {
    if (count === MISSED_COUNT_CAP) return { count, capped: true };
    count++;
  }
  return { count, capped: false };
}

/**
 * The decision for the slots s with `after` < s <= `now` (epoch ms): `after` is the newest slot the store holds
 * for this schedule (ran, skipped or missed) or when its time began to be kept with its present line, whichever is
 * later, or the slot just before the one the timer was armed for.
 */
export function catchUp(
  schedule: Pick<CronSchedule, 'next' | 'previous'>,
  after: number,
  now: number,
  catchUpMinutes: number,
): CatchUp {
  const newest = schedule.previous(now + 1);
  if (newest === undefined || newest <= after) return {};
  const oldest = schedule.next(after) ?? newest;
  const young = now - newest <= Math.max(catchUpMinutes * 60_000, ON_TIME_GRACE_MS);
  if (!young) return { missed: { ...countSlots(schedule, oldest, newest), oldest, newest } };
  if (oldest >= newest) return { run: newest };
  const before = schedule.previous(newest) ?? oldest;
  return { run: newest, missed: { ...countSlots(schedule, oldest, before), oldest, newest: before } };
}

/** What the target is told about missed slots, once. */
export function missedNotice(
  name: string,
  missed: MissedSlots,
  timezone: string,
): { code: Extract<ErrorCode, 'SCHEDULE_MISSED'>; text: string } {
  const runs = `${missed.count}${missed.capped ? ' or more' : ''} runs`;
  const when =
    missed.count === 1 && !missed.capped
      ? `the run of ${formatLocal(missed.newest, timezone)} was`
      : `${runs}, from ${formatLocal(missed.oldest, timezone)} to ${formatLocal(missed.newest, timezone)}, were`;
  const why =
    'Rudder was not running (or the machine slept) then; only the newest run is made up, within catchUpMinutes';
  return { code: 'SCHEDULE_MISSED', text: `Schedule ${name}: ${when} missed: ${why}.` };
}
