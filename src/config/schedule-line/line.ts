/**
 * A schedule line as the config gives it: a cron line (it starts with a digit, `*`, `?` or `@`) or a plain form
 * (it starts with a word: "every day at 07:00"). Either way it ends as one cron line read by croner.
 */
import { type CronSchedule, readCron } from './cron.js';
import { readPlain } from './plain.js';

export type ScheduleRead =
  | { ok: true; schedule: CronSchedule; form: 'cron' | 'plain' }
  | { ok: false; problem: string };

/** Cron lines start with a field; plain forms with a word. */
const looksLikeCron = (line: string) => /^\s*[\d*?@]/.test(line);

/** Reads a schedule line in a time zone; never throws. */
export function readSchedule(line: string, timezone: string): ScheduleRead {
  if (looksLikeCron(line)) {
    const cron = readCron(line, timezone);
    return cron.ok ? { ok: true, schedule: cron.schedule, form: 'cron' } : cron;
  }
  const plain = readPlain(line);
  if (!plain.ok) return plain;
  const cron = readCron(plain.cron, timezone);
  return cron.ok ? { ok: true, schedule: cron.schedule, form: 'plain' } : cron;
}
