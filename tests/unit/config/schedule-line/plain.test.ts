/**
 * The plain forms people type, each read into the cron line it means, and the lines that do not read, each
 * answered with what was wrong and an example that works.
 */
import { describe, expect, it } from 'vitest';
import { readPlain } from '../../../../src/config/schedule-line/plain.js';

const READS: Array<[string, string]> = [
  ['every minute', '* * * * *'],
  ['every 15 minutes', '*/15 * * * *'],
  ['Every 5 mins', '*/5 * * * *'],
  ['every 30 min on weekdays', '*/30 * * * 1-5'],
  ['every 60 minutes', '0 * * * *'],
  ['hourly', '0 * * * *'],
  ['every hour', '0 * * * *'],
  ['hourly at :15', '15 * * * *'],
  ['every hour at 30 past', '30 * * * *'],
  ['hourly on weekdays', '0 * * * 1-5'],
  ['every 2h', '0 */2 * * *'],
  ['every 2 hours', '0 */2 * * *'],
  ['every 6 hrs at :05', '5 */6 * * *'],
  ['every 24 hours', '0 0 * * *'],
  ['every day at 07:00', '0 7 * * *'],
  ['everyday at 7', '0 7 * * *'],
  ['daily at 7pm', '0 19 * * *'],
  ['daily at 7:30 PM.', '30 19 * * *'],
  ['daily at 12am', '0 0 * * *'],
  ['daily at 12pm', '0 12 * * *'],
  ['daily at noon', '0 12 * * *'],
  ['daily at midnight', '0 0 * * *'],
  ["daily at 9 o'clock", '0 9 * * *'],
  ['daily at 7 a.m.', '0 7 * * *'],
  ['every day at 9 and 17', '0 9,17 * * *'],
  ['every day at 7am, 1pm and 7pm', '0 7,13,19 * * *'],
  ['every day at 8:30 and at 20:30', '30 8,20 * * *'],
  ['weekdays at 18:30', '30 18 * * 1-5'],
  ['every weekday at 9', '0 9 * * 1-5'],
  ['on weekdays at 9', '0 9 * * 1-5'],
  ['weekends at 10am', '0 10 * * 0,6'],
  ['every monday at 9', '0 9 * * 1'],
  ['mondays at 9', '0 9 * * 1'],
  ['on tuesdays at 14:00', '0 14 * * 2'],
  ['every mon, wed and fri at 8', '0 8 * * 1,3,5'],
  ['every monday-friday at 8', '0 8 * * 1-5'],
  ['mon to thu at 8', '0 8 * * 1-4'],
  ['every monday to sunday at 8', '0 8 * * 1-7'],
  ['every sunday at 20:00', '0 20 * * 0'],
  ['at 07:00 every day', '0 7 * * *'],
  ['at 9 on weekdays', '0 9 * * 1-5'],
  ['monthly on the 1st at 09:00', '0 9 1 * *'],
  ['every month on the 15th at 8', '0 8 15 * *'],
  ['on the 2nd of every month at 8', '0 8 2 * *'],
  ['monthly on the last day at 18:00', '0 18 L * *'],
  ['  EVERY   Day   AT   07:00  ', '0 7 * * *'],
];

const PROBLEMS: Array<[string, RegExp]> = [
  ['', /empty.*every day at 07:00/],
  ['every 7 minutes', /7 minutes does not divide the hour.*15/],
  ['every 0 minutes', /0 minutes does not divide/],
  ['every 5 hours', /5 hours does not divide the day.*1, 2, 3, 4, 6, 8 or 12/],
  ['every 5 minutes at :10', /does not go with minutes/],
  ['hourly at 9', /"9" is not a minute of the hour.*hourly at :15/],
  ['daily', /needs a time.*daily at 07:00/],
  ['every monday', /needs a time.*every monday at 07:00/],
  ['daily at 25:00', /"25:00" is not a time of day.*07:00/],
  ['daily at 13pm', /with am or pm the hour is 1 to 12/],
  ['daily at 7:75', /"7:75" is not a time of day/],
  ['daily at teatime', /"teatime" is not a time of day/],
  ['every blursday at 9', /"blursday" is not a day.*every monday at 9/],
  ['every friday-monday at 9', /runs backwards.*monday-friday/],
  ['every day at 7:00 and 18:30', /different minutes.*two schedules/],
  ['monthly at 9', /say which day.*monthly on the 1st/],
  ['monthly on the 32nd at 9', /"32nd" is not a day of the month/],
  ['every 15 minutes monthly on the 1st', /days of the week only/],
  ['every 15 minutes on the 1st', /"the 1st" is not a day/],
  ['twice a day', /neither a cron line.*minute hour day-of-month.*every day at 07:00/],
];

describe('plain schedule forms', () => {
  it.each(READS)('reads "%s" as %s', (line, cron) => {
    expect(readPlain(line)).toEqual({ ok: true, cron });
  });

  it.each(PROBLEMS)('refuses "%s", saying what was wrong', (line, problem) => {
    const r = readPlain(line);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatch(problem);
  });
});
