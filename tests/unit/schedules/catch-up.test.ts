/**
 * The slots that came due between the newest one stored and now: the newest runs once if young enough, the rest
 * are missed and told once. Real croner schedules, an injected clock.
 */
import { describe, expect, it } from 'vitest';
import type { CronSchedule } from '../../../src/config/schedule-line/cron.js';
import { readSchedule } from '../../../src/config/schedule-line/line.js';
import { catchUp, MISSED_COUNT_CAP, missedNotice, ON_TIME_GRACE_MS } from '../../../src/schedules/catch-up.js';

const at = (iso: string) => Date.parse(iso);

function schedule(line: string, zone = 'UTC'): CronSchedule {
  const r = readSchedule(line, zone);
  if (!r.ok) throw new Error(r.problem);
  return r.schedule;
}

describe('catch-up', () => {
  const hourly = schedule('hourly');

  it('has nothing to do when no slot came due since the newest stored one', () => {
    expect(catchUp(hourly, at('2025-01-01T07:00:00Z'), at('2025-01-01T07:59:59Z'), 60)).toEqual({});
  });

  it('runs the slot the timer was armed for, on time', () => {
    const slot = at('2025-01-01T07:00:00Z');
    expect(catchUp(hourly, slot - 1, slot + 5, 60)).toEqual({ run: slot });
  });

  it('a wake within the grace is on time even with catchUpMinutes 0', () => {
    const slot = at('2025-01-01T07:00:00Z');
    expect(catchUp(hourly, slot - 1, slot + ON_TIME_GRACE_MS, 0)).toEqual({ run: slot });
    expect(catchUp(hourly, slot - 1, slot + ON_TIME_GRACE_MS + 1, 0)).toEqual({
      missed: { count: 1, capped: false, oldest: slot, newest: slot },
    });
  });

  it('after a restart, runs the newest missed slot once when younger than catchUpMinutes', () => {
    const d = catchUp(schedule('daily at 07:00'), at('2025-01-01T07:00:00Z'), at('2025-01-02T07:40:00Z'), 60);
    expect(d).toEqual({ run: at('2025-01-02T07:00:00Z') });
  });

  it('records the newest as missed when older than catchUpMinutes', () => {
    const d = catchUp(schedule('daily at 07:00'), at('2025-01-01T07:00:00Z'), at('2025-01-02T08:30:00Z'), 60);
    const slot = at('2025-01-02T07:00:00Z');
    expect(d).toEqual({ missed: { count: 1, capped: false, oldest: slot, newest: slot } });
  });

  it('runs only the newest of many young slots; the older ones are missed, counted once', () => {
    const d = catchUp(schedule('every 5 minutes'), at('2025-01-01T06:00:00Z'), at('2025-01-01T07:02:00Z'), 60);
    expect(d).toEqual({
      run: at('2025-01-01T07:00:00Z'),
      missed: { count: 11, capped: false, oldest: at('2025-01-01T06:05:00Z'), newest: at('2025-01-01T06:55:00Z') },
    });
  });

  it('counts a long outage up to the cap, and keeps its first and last slot', () => {
    const d = catchUp(schedule('every minute'), at('2025-01-01T00:00:00Z'), at('2025-01-08T00:00:30Z'), 60);
    expect(d.run).toBe(at('2025-01-08T00:00:00Z'));
    expect(d.missed).toEqual({
      count: MISSED_COUNT_CAP,
      capped: true,
      oldest: at('2025-01-01T00:01:00Z'),
      newest: at('2025-01-07T23:59:00Z'),
    });
  });

  it('the slot moved by the spring-forward gap is caught up like any other (Bucharest)', () => {
    const daily = schedule('daily at 03:30', 'Europe/Bucharest');
    const d = catchUp(daily, at('2025-03-29T01:30:00Z'), at('2025-03-30T01:20:00Z'), 60);
    expect(d).toEqual({ run: at('2025-03-30T01:00:00Z') });
  });
});

describe('missed notice', () => {
  it('names one run by its time in the schedule zone', () => {
    const slot = at('2025-01-02T05:00:00Z');
    const n = missedNotice('morning', { count: 1, capped: false, oldest: slot, newest: slot }, 'Europe/Bucharest');
    expect(n.code).toBe('SCHEDULE_MISSED');
    expect(n.text).toMatch(/^Schedule morning: the run of Thu 2025-01-02 07:00 GMT\+02:00 was missed: Rudder/);
  });

  it('names a span of runs, and says when there were more than it counted', () => {
    const n = missedNotice(
      'tick',
      { count: 50, capped: true, oldest: at('2025-01-01T00:01:00Z'), newest: at('2025-01-07T23:59:00Z') },
      'UTC',
    );
    expect(n.text).toContain('50 or more runs, from Wed 2025-01-01 00:01 GMT+00:00 to Tue 2025-01-07 23:59');
  });
});
