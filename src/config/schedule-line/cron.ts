/**
 * A cron line read by croner, in a schedule's time zone. Five fields (minute hour day-of-month month day-of-week),
 * or six with the seconds first (`*\/5 * * * * *`: a heartbeat of a test, a chaos run), or a nickname (@hourly,
 * @daily, @weekly, @monthly, @yearly); a date (croner's "run once at") is not a schedule.
 *
 * DST, as croner does it (Vixie cron's rules): a fixed time in the gap of a spring-forward runs at the first valid
 * time after it, the same day; a fixed time that happens twice (fall back) runs once, at the first. A list of
 * fixed times (`30 2,14 * * *`) counts as fixed too (`fixedTimeRule: 'no-wildcard'`); only wildcards and steps
 * (every 30 minutes) run on both passes of a repeated hour, each pass its own instant and so its own slot.
 *
 * Nothing here reads the clock: every question names the instant it starts from.
 */
import { Cron } from 'croner';
import { isTimeZone } from './zone.js';

export interface CronSchedule {
  /** The five fields as croner reads them (a nickname is kept as written). */
  readonly cron: string;
  readonly timezone: string;
  /** The first slot strictly after `after` (epoch ms), or undefined when the line never runs again. */
  next(after: number): number | undefined;
  /** The last slot strictly before `before`, or undefined when there is none. */
  previous(before: number): number | undefined;
}

export type CronRead = { ok: true; schedule: CronSchedule } | { ok: false; problem: string };

/** The fields of a cron line, for the error text. */
export const CRON_FIELDS = 'minute hour day-of-month month day-of-week';

const CRON_GUIDE = `fields: ${CRON_FIELDS}, e.g. "0 7 * * 1-5"`;
/** A fixed instant to ask "does this line ever run?" from, so the answer never depends on the clock. */
const EPOCH_2000 = Date.UTC(2000, 0, 1);

/** Reads a cron line in a time zone; never throws. */
export function readCron(line: string, timezone: string): CronRead {
  const text = line.trim().replace(/\s+/g, ' ');
  if (!isTimeZone(timezone)) return { ok: false, problem: `"${timezone}" is not a time zone (e.g. Europe/Bucharest)` };
  const fields = text.split(' ');
  if (!text.startsWith('@') && fields.length !== 5 && fields.length !== 6)
    return {
      ok: false,
      problem: `a cron line has 5 fields (${CRON_FIELDS}), or 6 with seconds first; "${text}" has ${fields.length}`,
    };
  const options = {
    timezone,
    mode: fields.length === 6 ? '6-part' : '5-part',
    fixedTimeRule: 'no-wildcard',
    paused: true,
  } as const;
  let cron: Cron;
  try {
    cron = new Cron(text, options);
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).replace(/^Cron\w*:\s*/, '');
    return { ok: false, problem: `"${text}" is not a cron line Rudder can read: ${why} (${CRON_GUIDE})` };
  }
  if (cron.getOnce()) return { ok: false, problem: `"${text}" is a date, not a repeating schedule` };
  if (!cron.nextRun(new Date(EPOCH_2000)))
    return { ok: false, problem: `"${text}" matches no date, so it would never run (${CRON_GUIDE})` };
  // A parsed line holds ~80 KB (croner's table of 10,000 years): read again per question, never kept per schedule.
  const parsed = () => new Cron(text, options);
  const schedule: CronSchedule = {
    cron: text,
    timezone,
    next: (after) => parsed().nextRun(new Date(after))?.getTime(),
    previous: (before) => parsed().previousRuns(1, new Date(before))[0]?.getTime(),
  };
  return { ok: true, schedule };
}
