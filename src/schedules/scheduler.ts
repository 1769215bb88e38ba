/**
 * The scheduler: every schedule's next slot in one timetable and ONE timer armed for the earliest slot or run
 * deadline, so nothing polls and 1,000 schedules cost an idle gateway nothing but that timer.
 *
 * Each slot fires at most once: before it runs, its row is stored under (schedule, slot) in the transaction of its
 * message (the door's), and a slot at or before the newest one stored never fires again, whatever restarts, late
 * timers or two clocks happen. At start, what came due while Rudder was down is caught up (catch-up.ts): the newest
 * slot runs once if it is young enough, the others are recorded as missed and the schedule's home is told. A slot
 * whose previous run still runs is skipped and said (overlap.ts); a run past its timeoutMinutes is stopped like
 * /stop and reported (timeout.ts). Paused schedules fire nothing; `runNow` fires one slot now, paused or not.
 *
 * Ordering: each wake decides every due schedule with the same `now` (timetable.ts), and a slot's checks and its
 * store write happen in one synchronous step (the door writes before its first await), so nothing interleaves.
 */
import type { Logger } from '../ops/logger.js';
import type { FiringRow, ScheduleFirings } from '../store/schedule-firings.js';
import { type CatchUp, catchUp, missedNotice } from './catch-up.js';
import type { ScheduleDef, ScheduleSet } from './definitions.js';
import { overlapDecision } from './overlap.js';
import { checkTimeout, deadlineOf } from './timeout.js';
import { planTimetable, type Timetable, takeDue, timerDelay, wakeAt } from './timetable.js';

/** The clock and timer the scheduler reads: the system's, or a test's that moves days in a moment. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface StartedRun {
  messageId: string;
  conversationId: string;
}

/** Where the scheduler's decisions are carried out (gateway/jobs/schedule-door.ts). */
export interface RunDoor {
  /** The slot's run: its conversation made, its message and row stored in one transaction; undefined: stored before. */
  run(def: ScheduleDef, slot: number, startedAt: number): Promise<StartedRun | undefined>;
  /** Tells the schedule's home (a slot missed or skipped). */
  tell(def: ScheduleDef, text: string): void;
  /** Stops a run past its timeout, as /stop does, and says why. */
  stop(def: ScheduleDef, run: FiringRow, text: string): Promise<void>;
}

export interface SchedulerDeps {
  clock: Clock;
  /** The schedules (the config's and the kept ones, with their pauses), read at start and at each reload. */
  load(): ScheduleSet;
  firings: ScheduleFirings;
  door: RunDoor;
  log: Logger;
}

export type RunNow = { ok: true; conversationId: string; text: string } | { ok: false; text: string };

interface Deadline {
  at: number;
  name: string;
  slot: number;
}

export class Scheduler {
  private defs = new Map<string, ScheduleDef>();
  private leftOut: ScheduleSet['problems'] = [];
  private table: Timetable = planTimetable([], 0);
  /** Open runs' deadlines, earliest first. */
  private deadlines: Deadline[] = [];
  private timer: unknown;
  private armedFor: number | undefined;
  private stopped = false;

  constructor(private readonly d: SchedulerDeps) {}

  /** Catches up what came due while Rudder was down, arms the open runs' deadlines, then the timer. */
  start(): void {
    const now = this.d.clock.now();
    this.defs = this.loaded();
    for (const def of this.active()) {
      const since = this.watch(def, now);
      const after = Math.max(this.d.firings.newestSlot(def.name) ?? since, since);
      this.apply(def, catchUp(def.line, after, now, def.catchUpMinutes), now);
    }
    for (const run of this.d.firings.open()) {
      const def = this.defs.get(run.schedule);
      if (def) this.addDeadline({ at: deadlineOf(run.startedAt, def.timeoutMinutes), name: def.name, slot: run.slot });
    }
    this.table = planTimetable(this.active().map(timed), now);
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.disarm();
  }

  /** The schedules read again (one added, changed, removed, paused or resumed); unchanged ones keep their slot. */
  reload(): void {
    const before = this.defs;
    const now = this.d.clock.now();
    this.defs = this.loaded();
    for (const def of this.active()) this.watch(def, now);
    const keep = this.active().filter((def) => sameLine(before.get(def.name), def) && this.table.next.has(def.name));
    const fresh = planTimetable(this.active().map(timed), now);
    const next = new Map(fresh.next);
    for (const def of keep) next.set(def.name, this.table.next.get(def.name)!);
    this.table = { schedules: fresh.schedules, next };
    this.arm();
  }

  /** Kept schedules left out at the last load, and why. */
  problems(): ScheduleSet['problems'] {
    return this.leftOut;
  }

  definitions(): ScheduleDef[] {
    return [...this.defs.values()];
  }

  definition(name: string): ScheduleDef | undefined {
    return this.defs.get(name);
  }

  /** The next slot of a schedule (epoch ms); undefined when paused, disabled or never again. */
  next(name: string): number | undefined {
    return this.table.next.get(name);
  }

  /** One slot now, paused or not; refused while the schedule's previous run still runs. */
  async runNow(name: string): Promise<RunNow> {
    const def = this.defs.get(name);
    if (!def) return { ok: false, text: `There is no schedule ${name}.` };
    const now = this.d.clock.now();
    const slot = Math.max(now, (this.d.firings.newestSlot(name) ?? 0) + 1);
    const overlap = overlapDecision(name, slot, runningRun(this.d.firings.lastRun(name)), def.timezone);
    if (overlap.kind === 'skip') return { ok: false, text: overlap.text };
    const started = await this.begin(def, slot, now);
    if (!started) return { ok: false, text: `Schedule ${name}: that slot was taken already; try again.` };
    return { ok: true, conversationId: started.conversationId, text: `Schedule ${name} runs now.` };
  }

  /**
   * A resumed schedule's slots while it was paused are not missed runs: its newest is recorded as skipped, so a
   * restart does not count them as missed.
   */
  resumed(name: string): void {
    const def = this.defs.get(name);
    const now = this.d.clock.now();
    const last = def?.line.previous(now + 1);
    if (!def || last === undefined || last <= (this.d.firings.newestSlot(name) ?? -1)) return;
    this.d.firings.insert({ schedule: name, slot: last, state: 'skipped', startedAt: now, endedAt: now });
  }

  private loaded(): Map<string, ScheduleDef> {
    const set = this.d.load();
    this.leftOut = set.problems;
    for (const p of set.problems) this.d.log.warn({ schedule: p.name, why: p.why }, 'kept schedule left out');
    return new Map(set.defs.map((def) => [def.name, def]));
  }

  /** Since when this schedule's time is kept with its present line: a slot before that is not owed. */
  private watch(def: ScheduleDef, now: number): number {
    return this.d.firings.watch(def.name, `${def.line.cron} ${def.timezone}`, now);
  }

  private active(): ScheduleDef[] {
    return [...this.defs.values()].filter((def) => def.enabled && !def.paused);
  }

  private wake(): void {
    this.timer = undefined;
    this.armedFor = undefined;
    if (this.stopped) return;
    const now = this.d.clock.now();
    const { due, table } = takeDue(this.table, now);
    this.table = table;
    for (const { name, decision } of due) {
      const def = this.defs.get(name);
      if (def) this.apply(def, decision, now);
    }
    this.expire(now);
    this.arm();
  }

  /** What a wake or the start decided for one schedule: missed slots recorded and told, the newest run. */
  private apply(def: ScheduleDef, decision: CatchUp, now: number): void {
    const { missed, run } = decision;
    if (missed) {
      const row = { schedule: def.name, slot: missed.newest, state: 'missed' as const, missedCount: missed.count };
      if (this.d.firings.insert({ ...row, startedAt: now, endedAt: now })) {
        this.d.log.warn({ schedule: def.name, missed: missed.count, newest: missed.newest }, 'schedule slots missed');
        this.d.door.tell(def, missedNotice(def.name, missed, def.timezone).text);
      }
    }
    if (run !== undefined) this.fire(def, run, now);
  }

  /** A slot comes due: it runs, unless it was stored before or the previous run still runs (skipped and said). */
  private fire(def: ScheduleDef, slot: number, now: number): void {
    const newest = this.d.firings.newestSlot(def.name);
    if (newest !== undefined && newest >= slot) return;
    const overlap = overlapDecision(def.name, slot, runningRun(this.d.firings.lastRun(def.name)), def.timezone);
    if (overlap.kind === 'skip') {
      if (!this.d.firings.insert({ schedule: def.name, slot, state: 'skipped', startedAt: now, endedAt: now })) return;
      this.d.log.info({ schedule: def.name, slot, running: overlap.running.slot }, 'schedule slot skipped: overlap');
      return this.d.door.tell(def, overlap.text);
    }
    void this.begin(def, slot, now);
  }

  /** The run of a slot, and its deadline. */
  private async begin(def: ScheduleDef, slot: number, now: number): Promise<StartedRun | undefined> {
    this.addDeadline({ at: deadlineOf(now, def.timeoutMinutes), name: def.name, slot });
    this.arm();
    try {
      const started = await this.d.door.run(def, slot, now);
      if (started) this.d.log.info({ schedule: def.name, slot, ...started }, 'schedule fired');
      return started;
    } catch (err) {
      this.d.log.error({ schedule: def.name, slot, err: (err as Error).message }, 'schedule slot could not start');
      return undefined;
    }
  }

  private addDeadline(d: Deadline): void {
    let i = this.deadlines.length;
    while (i > 0 && this.deadlines[i - 1]!.at > d.at) i--;
    this.deadlines.splice(i, 0, d);
  }

  /** Runs past their deadline are stopped; those that ended meanwhile are forgotten. */
  private expire(now: number): void {
    while (this.deadlines.length && this.deadlines[0]!.at <= now) {
      const { name, slot } = this.deadlines.shift()!;
      const def = this.defs.get(name);
      const run = this.d.firings.get(name, slot);
      if (!def || run?.outcome !== 'running') continue;
      const check = checkTimeout(name, run.startedAt, def.timeoutMinutes, now);
      if (check.kind === 'within') {
        this.addDeadline({ at: now + check.leftMs, name, slot });
        continue;
      }
      // Why it stops is recorded before it is stopped.
      if (!this.d.firings.end(name, slot, 'timed_out', now)) continue;
      this.d.log.warn({ schedule: name, slot, timeoutMinutes: def.timeoutMinutes }, 'scheduled run timed out');
      void this.d.door.stop(def, run, check.text).catch((err: Error) => {
        this.d.log.error({ schedule: name, slot, err: err.message }, 'a timed-out run could not be stopped');
      });
    }
  }

  /** One timer, for the earliest slot or deadline; re-armed only when that changes. */
  private arm(): void {
    if (this.stopped) return;
    const slot = wakeAt(this.table);
    const deadline = this.deadlines[0]?.at;
    const wake = slot === undefined ? deadline : deadline === undefined ? slot : Math.min(slot, deadline);
    if (wake === this.armedFor && this.timer !== undefined) return;
    this.disarm();
    if (wake === undefined) return;
    this.armedFor = wake;
    this.timer = this.d.clock.setTimeout(() => this.wake(), timerDelay(wake, this.d.clock.now()));
  }

  private disarm(): void {
    if (this.timer !== undefined) this.d.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = undefined;
  }
}

const timed = (def: ScheduleDef) => ({ name: def.name, schedule: def.line, catchUpMinutes: def.catchUpMinutes });

const sameLine = (a: ScheduleDef | undefined, b: ScheduleDef) =>
  !!a && a.enabled && !a.paused && a.cron === b.cron && a.timezone === b.timezone;

function runningRun(last: FiringRow | undefined) {
  return last?.outcome === 'running' ? { slot: last.slot, startedAt: last.startedAt } : undefined;
}
