/**
 * One timer for every schedule: the table holds each schedule's next slot, a wake decides the due ones with one
 * `now` and moves only them on, and 1,000 idle schedules cost one scan, not one croner step each.
 */
import { describe, expect, it } from 'vitest';
import type { CronSchedule } from '../../../src/config/schedule-line/cron.js';
import { readSchedule } from '../../../src/config/schedule-line/line.js';
import {
  MAX_TIMER_MS,
  planTimetable,
  type TimedSchedule,
  takeDue,
  timerDelay,
  wakeAt,
} from '../../../src/schedules/timetable.js';

const at = (iso: string) => Date.parse(iso);

function schedule(line: string, zone = 'UTC'): CronSchedule {
  const r = readSchedule(line, zone);
  if (!r.ok) throw new Error(r.problem);
  return r.schedule;
}

const timed = (name: string, line: string, zone = 'UTC'): TimedSchedule => ({
  name,
  schedule: schedule(line, zone),
  catchUpMinutes: 60,
});

/** A schedule whose croner steps are counted: what an idle table costs. */
function counted(s: TimedSchedule): { timed: TimedSchedule; calls: () => number } {
  let calls = 0;
  const inner = s.schedule;
  const schedule = {
    next: (after: number) => (calls++, inner.next(after)),
    previous: (before: number) => (calls++, inner.previous(before)),
  };
  return { timed: { ...s, schedule }, calls: () => calls };
}

describe('timetable', () => {
  it('wakes for the earliest slot across schedules in different zones', () => {
    const now = at('2025-03-03T04:30:00Z');
    const table = planTimetable(
      [
        timed('bucharest', 'weekdays at 07:00', 'Europe/Bucharest'), // 05:00Z
        timed('utc', 'daily at 06:00'),
        timed('tokyo', 'daily at 14:00', 'Asia/Tokyo'), // 05:00Z
      ],
      now,
    );
    expect(wakeAt(table)).toBe(at('2025-03-03T05:00:00Z'));
    expect(timerDelay(wakeAt(table) ?? 0, now)).toBe(30 * 60_000);
  });

  it('a wake takes every schedule due at that instant, once, and arms each for its next slot', () => {
    const now = at('2025-03-03T04:30:00Z');
    const table = planTimetable(
      [
        timed('bucharest', 'weekdays at 07:00', 'Europe/Bucharest'),
        timed('tokyo', 'daily at 14:00', 'Asia/Tokyo'),
        timed('utc', 'daily at 06:00'),
      ],
      now,
    );
    const wake = at('2025-03-03T05:00:00.004Z');
    const first = takeDue(table, wake);
    expect(first.due).toEqual([
      { name: 'bucharest', decision: { run: at('2025-03-03T05:00:00Z') } },
      { name: 'tokyo', decision: { run: at('2025-03-03T05:00:00Z') } },
    ]);
    expect(wakeAt(first.table)).toBe(at('2025-03-03T06:00:00Z'));
    expect(first.table.next.get('bucharest')).toBe(at('2025-03-04T05:00:00Z'));
    // The same instant again (a second wake, a clock read twice) finds nothing: a slot is taken once.
    expect(takeDue(first.table, wake).due).toEqual([]);
  });

  it('a wake before the slot (a timer a little early) takes nothing and leaves the table as it was', () => {
    const table = planTimetable([timed('utc', 'daily at 06:00')], at('2025-03-03T04:30:00Z'));
    const early = takeDue(table, at('2025-03-03T05:59:59.990Z'));
    expect(early.due).toEqual([]);
    expect(early.table).toBe(table);
  });

  it('a wake hours late (the machine slept) decides the due slot by the catch-up rule', () => {
    const table = planTimetable([timed('utc', 'daily at 06:00')], at('2025-03-03T05:50:00Z'));
    const late = takeDue(table, at('2025-03-03T09:00:00Z'));
    const slot = at('2025-03-03T06:00:00Z');
    expect(late.due).toEqual([
      { name: 'utc', decision: { missed: { count: 1, capped: false, oldest: slot, newest: slot } } },
    ]);
    expect(wakeAt(late.table)).toBe(at('2025-03-04T06:00:00Z'));
  });

  it('1,000 schedules: planning asks each once, arming asks none, a wake asks only the due ones', () => {
    const all = Array.from({ length: 1000 }, (_, i) => counted(timed(`s${i}`, `${i % 60} ${i % 24} * * *`)));
    const now = at('2025-03-03T00:00:30Z');
    const table = planTimetable(
      all.map((c) => c.timed),
      now,
    );
    const planned = all.reduce((n, c) => n + c.calls(), 0);
    expect(planned).toBe(1000);
    const wake = wakeAt(table);
    expect(all.reduce((n, c) => n + c.calls(), 0)).toBe(planned);
    const { due } = takeDue(table, wake ?? 0);
    const asked = all.filter((c) => c.calls() > 1).map((c) => c.timed.name);
    expect(asked).toEqual(due.map((d) => d.name));
    expect(due.length).toBeGreaterThan(0);
    expect(due.length).toBeLessThan(10);
  });

  it('a slot beyond what setTimeout holds is reached by waking at the cap and re-arming', () => {
    const now = at('2025-01-01T00:00:00Z');
    const table = planTimetable([timed('yearly', '@yearly')], now);
    const wake = wakeAt(table) ?? 0;
    expect(wake).toBe(at('2026-01-01T00:00:00Z'));
    expect(timerDelay(wake, now)).toBe(MAX_TIMER_MS);
    expect(takeDue(table, now + MAX_TIMER_MS).due).toEqual([]);
    expect(timerDelay(wake, wake + 5)).toBe(0);
  });

  it('a table with no schedule has no wake', () => {
    expect(wakeAt(planTimetable([], 0))).toBeUndefined();
  });
});
