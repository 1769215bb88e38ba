/**
 * The plain forms people type for a schedule, each read into one cron line. A small grammar, tried whole:
 *
 *   interval  every minute | every N minutes | hourly | every hour | every N hours (every 2h)
 *             [at :MM | at MM past] [on DAYS]
 *   days      DAYS at TIMES | at TIMES DAYS
 *   DAYS      daily | every day | weekdays | weekends | every monday | mondays | on mon, wed and fri
 *             | every monday-friday | monthly on the 1st | every month on the 15th | monthly on the last day
 *   TIMES     7 | 07:00 | 7am | 7:30 pm | noon | midnight, several joined by "," or "and" (one minute for all)
 *
 * Case and extra spaces do not matter. A line that does not read gives a problem that says what was wrong and
 * an example that works; it never throws. Intervals must divide the hour (or the day) evenly, because cron
 * restarts its count at each hour: `*\/7` would run at :56 and again at :00.
 */

export type PlainRead = { ok: true; cron: string } | { ok: false; problem: string };

/** What the error text offers when nothing reads. */
export const PLAIN_EXAMPLES = [
  'every 15 minutes',
  'every 2h',
  'hourly',
  'every day at 07:00',
  'weekdays at 18:30',
  'every monday at 9',
  'daily at 7pm',
  'monthly on the 1st at 09:00',
];

const fail = (problem: string): PlainRead => ({ ok: false, problem });
type Part<T> = { ok: true; value: T } | { ok: false; problem: string };
const part = <T>(value: T): Part<T> => ({ ok: true, value });
const miss = <T>(problem: string): Part<T> => ({ ok: false, problem });

const DAY_NUMBERS: Record<string, number> = {
  sunday: 0,
  sun: 0,
  monday: 1,
  mon: 1,
  tuesday: 2,
  tue: 2,
  tues: 2,
  wednesday: 3,
  wed: 3,
  thursday: 4,
  thu: 4,
  thur: 4,
  thurs: 4,
  friday: 5,
  fri: 5,
  saturday: 6,
  sat: 6,
};

/** Reads a plain form into a cron line, or says what was wrong with an example that works. */
export function readPlain(line: string): PlainRead {
  const text = line
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!]+$/, '');
  if (!text) return fail('the schedule is empty; e.g. "every day at 07:00"');
  const interval = readInterval(text);
  if (interval) return interval;
  return readDaysAndTimes(text);
}

const MINUTE_OF_HOUR = String.raw`:\d{1,2}|\d{1,2} (?:minutes )?past`;
const INTERVAL = new RegExp(
  String.raw`^(?:every|each) (?:(\d+) ?)?(minutes?|mins?|m|hours?|hrs?|h)(?: at (${MINUTE_OF_HOUR}))?(?: (.+))?$`,
);

/** every N minutes | every N hours [at :MM] [DAYS]; undefined when the line is not an interval. */
function readInterval(text: string): PlainRead | undefined {
  const hourly = /^hourly(?: at (.+?))?(?: (on .+))?$/.exec(text);
  const m = hourly ? [text, '1', 'h', hourly[1], hourly[2]] : INTERVAL.exec(text);
  if (!m) return undefined;
  const [, count, unit = '', at, days] = m;
  const n = count === undefined ? 1 : Number(count);
  const dow = days === undefined ? part('*') : readWeekdaysOnly(days);
  if (!dow.ok) return fail(dow.problem);
  if (unit.startsWith('m')) {
    if (at !== undefined) return fail(`"at ${at}" does not go with minutes; e.g. "every 15 minutes"`);
    if (n === 60) return { ok: true, cron: `0 * * * ${dow.value}` };
    if (n < 1 || n >= 60 || 60 % n !== 0)
      return fail(`every ${n} minutes does not divide the hour evenly; use 1, 2, 3, 4, 5, 6, 10, 12, 15, 20 or 30`);
    return { ok: true, cron: `${n === 1 ? '*' : `*/${n}`} * * * ${dow.value}` };
  }
  const minute = at === undefined ? part(0) : readMinuteOfHour(at);
  if (!minute.ok) return fail(minute.problem);
  if (n === 24) return { ok: true, cron: `${minute.value} 0 * * ${dow.value}` };
  if (n < 1 || n >= 24 || 24 % n !== 0)
    return fail(`every ${n} hours does not divide the day evenly; use 1, 2, 3, 4, 6, 8 or 12`);
  return { ok: true, cron: `${minute.value} ${n === 1 ? '*' : `*/${n}`} * * ${dow.value}` };
}

/** ":15", "15 past", "15 minutes past". */
function readMinuteOfHour(text: string): Part<number> {
  const m = /^(?::(\d{1,2})|(\d{1,2}) (?:minutes )?past)$/.exec(text);
  const minute = m ? Number(m[1] ?? m[2]) : Number.NaN;
  if (!(minute >= 0 && minute <= 59)) return miss(`"${text}" is not a minute of the hour; e.g. "hourly at :15"`);
  return part(minute);
}

/** An interval's "on weekdays", "on mondays", "weekends": days of the week only. */
function readWeekdaysOnly(text: string): Part<string> {
  const days = readDays(text);
  if (!days.ok) return days;
  if (days.value.dom !== '*') return miss(`"${text}": an interval runs on days of the week only; e.g. "on weekdays"`);
  return part(days.value.dow);
}

/** DAYS at TIMES, or at TIMES DAYS. */
function readDaysAndTimes(text: string): PlainRead {
  let daysText: string;
  let timesText: string;
  const lead = /^at (.+?) ((?:every|each|on|daily|weekdays|weekends|monthly) ?.*)$/.exec(text);
  if (lead) [, timesText = '', daysText = ''] = lead;
  else {
    const at = text.indexOf(' at ');
    if (at < 0) return noTime(text);
    daysText = text.slice(0, at);
    timesText = text.slice(at + 4);
  }
  const days = readDays(daysText);
  if (!days.ok) return fail(days.problem);
  const times = readTimes(timesText);
  if (!times.ok) return fail(times.problem);
  return { ok: true, cron: `${times.value.minute} ${times.value.hours} ${days.value.dom} * ${days.value.dow}` };
}

/** The line names no time: say so when it named days, else offer the forms. */
function noTime(text: string): PlainRead {
  if (readDays(text).ok) return fail(`"${text}" needs a time; e.g. "${text} at 07:00"`);
  return fail(
    `"${text}" is neither a cron line (5 fields: minute hour day-of-month month day-of-week, e.g. "0 7 * * 1-5") ` +
      `nor a form Rudder reads, such as ${PLAIN_EXAMPLES.map((e) => `"${e}"`).join(', ')}`,
  );
}

interface Days {
  dom: string;
  dow: string;
}

function readDays(text: string): Part<Days> {
  if (/^(?:daily|every ?day|each day)$/.test(text)) return part({ dom: '*', dow: '*' });
  if (/^(?:(?:every|on|each) )?weekdays?$/.test(text)) return part({ dom: '*', dow: '1-5' });
  if (/^(?:(?:every|on|each) )?weekends?$/.test(text)) return part({ dom: '*', dow: '0,6' });
  const monthly = /^(?:monthly|(?:every|each) month)(?: on)?(?: the)? ?(.*)$/.exec(text);
  const dayOfMonth = /^on the (.+) of (?:every|each) month$/.exec(text);
  if (monthly || dayOfMonth) return readDayOfMonth((monthly?.[1] ?? dayOfMonth?.[1] ?? '').trim());
  const list = /^(?:(?:every|on|each) )?(.+)$/.exec(text)?.[1] ?? text;
  const dow = readDayList(list);
  return dow.ok ? part({ dom: '*', dow: dow.value }) : dow;
}

/** "1st", "15", "15th", "last day". */
function readDayOfMonth(text: string): Part<Days> {
  if (/^last(?: day)?$/.test(text)) return part({ dom: 'L', dow: '*' });
  const m = /^(?:day )?(\d{1,2})(?:st|nd|rd|th)?(?: day)?$/.exec(text);
  const day = m ? Number(m[1]) : Number.NaN;
  if (!(day >= 1 && day <= 31))
    return miss(
      `${text ? `"${text}" is not a day of the month` : 'say which day'}; e.g. "monthly on the 1st at 09:00"`,
    );
  return part({ dom: String(day), dow: '*' });
}

/** "monday", "mondays", "mon, wed and fri", "monday-friday", "mon to fri". */
function readDayList(text: string): Part<string> {
  const out: string[] = [];
  for (const item of text.split(/ ?, ?| and | ?& ?/)) {
    const range = /^(\S+?)(?: ?- ?| to | through | thru )(\S+)$/.exec(item);
    const names = range ? [range[1] ?? '', range[2] ?? ''] : [item];
    const numbers = names.map((name) => DAY_NUMBERS[name.replace(/s$/, '')]);
    const bad = names.find((_, i) => numbers[i] === undefined);
    if (bad !== undefined)
      return miss(
        `"${bad}" is not a day: write monday to sunday (or mon to sun), weekdays, weekends or every day; ` +
          'e.g. "every monday at 9"',
      );
    const [from = 0, to = 0] = numbers as number[];
    // Sunday closes a week that starts on Monday (cron reads 7 as Sunday too).
    const end = range && to === 0 ? 7 : to;
    if (range && from > end) return miss(`"${item}" runs backwards; start with the earlier day, e.g. "monday-friday"`);
    out.push(range ? `${from}-${end}` : String(from));
  }
  return part(out.join(','));
}

interface Times {
  minute: number;
  /** Hours joined for cron: "7" or "9,17". */
  hours: string;
}

/** "07:00", "7am and 7pm", "9, 13 and 17": every time on the same minute, so one cron line holds them. */
function readTimes(text: string): Part<Times> {
  const times: Array<{ hour: number; minute: number; text: string }> = [];
  for (const item of text.split(/ ?, ?| and | ?& ?/).map((t) => t.replace(/^at /, ''))) {
    const t = readTime(item);
    if (!t.ok) return t;
    times.push({ ...t.value, text: item });
  }
  const [first] = times;
  if (!first) return miss('say at what time; e.g. "every day at 07:00"');
  const other = times.find((t) => t.minute !== first.minute);
  if (other)
    return miss(
      `${first.text} and ${other.text} are on different minutes, which one cron line cannot hold: make two ` +
        'schedules, or write a cron line',
    );
  const hours = [...new Set(times.map((t) => t.hour))].sort((a, b) => a - b);
  return part({ minute: first.minute, hours: hours.join(',') });
}

/** "7", "07:00", "7am", "7:30 pm", "19:30", "noon", "midnight", "9 o'clock". */
function readTime(text: string): Part<{ hour: number; minute: number }> {
  const spoken = text.replace(/ ?o'?clock$/, '');
  if (spoken === 'noon' || spoken === 'midday') return part({ hour: 12, minute: 0 });
  if (spoken === 'midnight') return part({ hour: 0, minute: 0 });
  const m = /^(\d{1,2})(?:[:h](\d{2}))? ?(am|pm|a\.m\.?|p\.m\.?)?$/.exec(spoken);
  const example = 'e.g. "07:00", "7am" or "18:30"';
  if (!m) return miss(`"${text}" is not a time of day; ${example}`);
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const half = m[3]?.[0];
  if (half && (hour < 1 || hour > 12)) return miss(`"${text}": with am or pm the hour is 1 to 12; ${example}`);
  if (half) hour = (hour % 12) + (half === 'p' ? 12 : 0);
  if (hour > 23 || minute > 59) return miss(`"${text}" is not a time of day; ${example}`);
  return part({ hour, minute });
}
