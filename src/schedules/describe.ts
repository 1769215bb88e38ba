/**
 * A schedule line answered back as the cron line it became and its next run times in its own zone, with the
 * offset, so nobody guesses what a plain form meant or which side of a DST change a run falls on.
 */
import { readSchedule } from '../config/schedule-line/line.js';
import { formatLocal } from '../config/schedule-line/zone.js';

export interface ScheduleDescription {
  cron: string;
  timezone: string;
  /** The next run times, epoch ms. */
  next: number[];
  /** `0 7 * * 1-5 (Europe/Bucharest); next: Mon 2025-03-03 07:00 GMT+02:00, ...` */
  text: string;
}

export type DescribeResult = ({ ok: true } & ScheduleDescription) | { ok: false; problem: string };

/** The line as cron, and its next `count` run times after `now` in its own zone. */
export function describeSchedule(line: string, timezone: string, now: number, count = 3): DescribeResult {
  const read = readSchedule(line, timezone);
  if (!read.ok) return read;
  const next: number[] = [];
  for (let at = read.schedule.next(now); at !== undefined && next.length < count; at = read.schedule.next(at))
    next.push(at);
  const when = next.length ? next.map((at) => formatLocal(at, timezone)).join(', ') : 'never (no date matches)';
  const text = `${read.schedule.cron} (${timezone}); next: ${when}`;
  return { ok: true, cron: read.schedule.cron, timezone, next, text };
}
