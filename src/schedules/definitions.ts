/**
 * The schedules a gateway runs: the config's (`schedules`) and those kept in the store (made from a chat or the
 * page), each read once into its cron line, with whether it is paused. A kept schedule is checked by the config's
 * own schema and references, so it can never be something the config could not hold; one whose name the config
 * has, or that no longer checks (its project was removed), is left out and said.
 */
import { describeIssues } from '../config/load.js';
import type { CronSchedule } from '../config/schedule-line/cron.js';
import { readSchedule } from '../config/schedule-line/line.js';
import {
  type KnownNames,
  type ScheduleConfig,
  type SchedulesConfig,
  scheduleSchema,
  targetProblems,
} from '../config/schedules-schema.js';
import type { KeptScheduleRow } from '../store/kept-schedules.js';

export interface ScheduleDef extends ScheduleConfig {
  name: string;
  /** config: the config file's (edited there); kept: made from a chat or the page (edited there). */
  origin: 'config' | 'kept';
  paused: boolean;
  /** The schedule's line, read in its zone. */
  line: CronSchedule;
}

export interface ScheduleSet {
  defs: ScheduleDef[];
  /** Kept schedules left out, and why. */
  problems: Array<{ name: string; why: string }>;
}

/** A schedule of the config's shape, checked as the config checks it; its definition or the problems, one a line. */
export function checkSchedule(
  value: unknown,
  known: KnownNames,
): { ok: true; config: ScheduleConfig } | { ok: false; problems: string[] } {
  const parsed = scheduleSchema.safeParse(value);
  if (!parsed.success) return { ok: false, problems: describeIssues(parsed.error.issues) };
  const refs = targetProblems([], parsed.data, known);
  if (refs.length) return { ok: false, problems: refs.map((p) => `${p.path.join('.')}: ${p.message}`) };
  return { ok: true, config: parsed.data };
}

function defOf(name: string, c: ScheduleConfig, origin: ScheduleDef['origin'], paused: boolean): ScheduleDef {
  const read = readSchedule(c.cron, c.timezone);
  // The schema read the same line already: a line it took reads here too.
  if (!read.ok) throw new Error(`schedule ${name}: ${read.problem}`);
  return { ...c, name, origin, paused, line: read.schedule };
}

export function scheduleSet(
  config: SchedulesConfig,
  kept: readonly KeptScheduleRow[],
  paused: ReadonlySet<string>,
  known: KnownNames,
): ScheduleSet {
  const defs = Object.entries(config).map(([name, c]) => defOf(name, c, 'config', paused.has(name)));
  const problems: ScheduleSet['problems'] = [];
  for (const k of kept) {
    if (Object.hasOwn(config, k.name)) {
      problems.push({ name: k.name, why: "the config has a schedule of this name: the config's runs" });
      continue;
    }
    const checked = checkSchedule(k.definition, known);
    if (!checked.ok) problems.push({ name: k.name, why: checked.problems.join('; ') });
    else defs.push(defOf(k.name, checked.config, 'kept', paused.has(k.name)));
  }
  return { defs, problems };
}
