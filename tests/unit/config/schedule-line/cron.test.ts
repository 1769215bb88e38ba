/**
 * Schedule lines read by croner in the schedule's own zone: the slots they give across a DST change and across
 * midnight in a zone far from UTC, and the lines refused with what was wrong. Every question names its instant.
 */
import { describe, expect, it } from 'vitest';
import { readSchedule } from '../../../../src/config/schedule-line/line.js';
import { describeSchedule } from '../../../../src/schedules/describe.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** The next `n` slots of a line after `from`, as UTC ISO strings. */
function slots(line: string, zone: string, from: string, n: number): Array<string | undefined> {
  const r = readSchedule(line, zone);
  if (!r.ok) throw new Error(r.problem);
  const out: Array<string | undefined> = [];
  let t = at(from);
  for (let i = 0; i < n; i++) {
    const next = r.schedule.next(t);
    out.push(iso(next));
    if (next === undefined) break;
    t = next;
  }
  return out;
}

describe('slots in a time zone', () => {
  it('a fixed time in the spring-forward gap runs once, at the first valid time after it (Bucharest)', () => {
    // 2025-03-30 03:00 EET becomes 04:00 EEST: 03:30 does not exist that day.
    expect(slots('daily at 03:30', 'Europe/Bucharest', '2025-03-28T12:00:00Z', 3)).toEqual([
      '2025-03-29T01:30:00.000Z',
      '2025-03-30T01:00:00.000Z',
      '2025-03-31T00:30:00.000Z',
    ]);
  });

  it('a fixed time the fall-back repeats runs once, at its first pass (Bucharest)', () => {
    // 2025-10-26 04:00 EEST becomes 03:00 EET: 03:30 happens twice.
    expect(slots('30 3 * * *', 'Europe/Bucharest', '2025-10-24T12:00:00Z', 3)).toEqual([
      '2025-10-25T00:30:00.000Z',
      '2025-10-26T00:30:00.000Z',
      '2025-10-27T01:30:00.000Z',
    ]);
  });

  it('a list of fixed times also runs once in the repeated hour', () => {
    expect(slots('every day at 3 and 15', 'Europe/Bucharest', '2025-10-25T13:00:00Z', 3)).toEqual([
      '2025-10-26T00:00:00.000Z',
      '2025-10-26T13:00:00.000Z',
      '2025-10-27T01:00:00.000Z',
    ]);
  });

  it('an interval runs on both passes of the repeated hour, each pass its own instant', () => {
    expect(slots('every 30 minutes', 'Europe/Bucharest', '2025-10-26T00:10:00Z', 4)).toEqual([
      '2025-10-26T00:30:00.000Z', // 03:30 EEST
      '2025-10-26T01:00:00.000Z', // 03:00 EET
      '2025-10-26T01:30:00.000Z', // 03:30 EET
      '2025-10-26T02:00:00.000Z',
    ]);
  });

  it('an interval skips the hour the spring-forward removes (New York)', () => {
    // 2025-03-09 02:00 EST becomes 03:00 EDT.
    expect(slots('hourly', 'America/New_York', '2025-03-09T05:30:00Z', 3)).toEqual([
      '2025-03-09T06:00:00.000Z', // 01:00 EST
      '2025-03-09T07:00:00.000Z', // 03:00 EDT
      '2025-03-09T08:00:00.000Z',
    ]);
  });

  it('weekdays in Tokyo begin on the UTC Sunday: the zone decides the day, not UTC', () => {
    // Monday 2025-03-03 01:00 JST is Sunday 2025-03-02 16:00 UTC.
    expect(slots('weekdays at 01:00', 'Asia/Tokyo', '2025-03-01T00:00:00Z', 2)).toEqual([
      '2025-03-02T16:00:00.000Z',
      '2025-03-03T16:00:00.000Z',
    ]);
  });

  it('a late evening in Los Angeles is the next UTC day, and Friday evening is a weekday there', () => {
    // Friday 2025-03-07 23:30 PST is Saturday 07:30 UTC.
    expect(slots('weekdays at 23:30', 'America/Los_Angeles', '2025-03-07T12:00:00Z', 2)).toEqual([
      '2025-03-08T07:30:00.000Z',
      '2025-03-11T06:30:00.000Z', // Monday 23:30 PDT: DST began on the Sunday
    ]);
  });

  it('previous() finds the slot at or before an instant, strictly before the one asked', () => {
    const r = readSchedule('0 7 * * *', 'UTC');
    if (!r.ok) throw new Error(r.problem);
    expect(iso(r.schedule.previous(at('2025-01-03T07:00:00Z')))).toBe('2025-01-02T07:00:00.000Z');
    expect(iso(r.schedule.previous(at('2025-01-03T07:00:00.001Z')))).toBe('2025-01-03T07:00:00.000Z');
    expect(iso(r.schedule.next(at('2025-01-03T07:00:00.500Z')))).toBe('2025-01-04T07:00:00.000Z');
  });
});

describe('lines refused', () => {
  const problem = (line: string, zone = 'UTC') => {
    const r = readSchedule(line, zone);
    return r.ok ? undefined : r.problem;
  };

  it('names what was wrong and shows a line that works', () => {
    expect(problem('0 7 * *')).toMatch(/5 fields.*has 4/);
    expect(problem('0 0 7 * * * *')).toMatch(/5 fields.*6 with seconds first.*has 7/);
    expect(problem('61 7 * * *')).toMatch(/Invalid value for minute: 61.*e\.g\. "0 7 \* \* 1-5"/);
    expect(problem('0 0 30 2 *')).toMatch(/matches no date, so it would never run/);
    expect(problem('2030-01-01T00:00:00')).toMatch(/5 fields/);
    expect(problem('@reboot')).toMatch(/@reboot is not supported/);
    expect(problem('0 7 * * *', 'Mars/Base')).toMatch(/"Mars\/Base" is not a time zone/);
    expect(problem('weekdays at 25:00', 'UTC')).toMatch(/"25:00" is not a time of day/);
  });

  it('takes six fields, the seconds first', () => {
    const r = readSchedule('*/5 * * * * *', 'UTC');
    if (!r.ok) throw new Error(r.problem);
    expect(r.schedule.next(at('2025-03-01T12:00:01Z'))).toBe(at('2025-03-01T12:00:05Z'));
    expect(r.schedule.previous(at('2025-03-01T12:00:05Z'))).toBe(at('2025-03-01T12:00:00Z'));
  });

  it('takes cron nicknames and names of days and months', () => {
    expect(readSchedule('@daily', 'UTC').ok).toBe(true);
    expect(readSchedule('0 9 * JAN MON-FRI', 'UTC').ok).toBe(true);
  });
});

describe('describe', () => {
  it('answers with the cron line and the next three runs in the schedule zone, offset shown', () => {
    const d = describeSchedule('weekdays at 07:00', 'Europe/Bucharest', at('2025-03-01T12:00:00Z'));
    expect(d).toEqual({
      ok: true,
      cron: '0 7 * * 1-5',
      timezone: 'Europe/Bucharest',
      next: [at('2025-03-03T05:00:00Z'), at('2025-03-04T05:00:00Z'), at('2025-03-05T05:00:00Z')],
      text:
        '0 7 * * 1-5 (Europe/Bucharest); next: Mon 2025-03-03 07:00 GMT+02:00, Tue 2025-03-04 07:00 GMT+02:00, ' +
        'Wed 2025-03-05 07:00 GMT+02:00',
    });
  });

  it('shows the offset changing across DST, so a run after the change is not guessed', () => {
    const d = describeSchedule('daily at 09:00', 'Europe/Bucharest', at('2025-03-29T12:00:00Z'));
    expect(d.ok && d.text).toBe(
      '0 9 * * * (Europe/Bucharest); next: Sun 2025-03-30 09:00 GMT+03:00, Mon 2025-03-31 09:00 GMT+03:00, ' +
        'Tue 2025-04-01 09:00 GMT+03:00',
    );
    const before = describeSchedule('daily at 09:00', 'Europe/Bucharest', at('2025-03-28T12:00:00Z'));
    expect(before.ok && before.text).toContain('Sat 2025-03-29 09:00 GMT+02:00, Sun 2025-03-30 09:00 GMT+03:00');
  });

  it('passes the problem through for a line that does not read', () => {
    expect(describeSchedule('every 7 minutes', 'UTC', 0)).toEqual({
      ok: false,
      problem: expect.stringMatching(/does not divide the hour/),
    });
  });
});
