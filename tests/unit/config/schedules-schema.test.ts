/**
 * The `schedules` config section: defaults, and each bad key named with what is wrong (the config's loader prints
 * the path and message of every issue).
 */
import { describe, expect, it } from 'vitest';
import { machineTimeZone } from '../../../src/config/schedule-line/zone.js';
import {
  type SchedulesConfig,
  scheduleReferenceProblems,
  schedulesSchema,
} from '../../../src/config/schedules-schema.js';

/** "morning.cron: ..." for each issue, as the config loader shows them (its keys, its messages). */
function problems(value: unknown): string[] {
  const r = schedulesSchema.safeParse(value);
  if (r.success) return [];
  return r.error.issues.map((i) => {
    if (i.code === 'unrecognized_keys') return `${[...i.path, ...i.keys].join('.')}: unknown key`;
    if (i.code === 'invalid_key') return `${i.path.join('.')}: ${i.issues.map((x) => x.message).join('; ')}`;
    return `${i.path.join('.')}: ${i.message}`;
  });
}

describe('schedules schema', () => {
  it('fills the defaults, the time zone with this machine zone', () => {
    const r = schedulesSchema.parse({ morning: { cron: 'weekdays at 07:00', prompt: 'CI?', deliver: 'telegram:42' } });
    expect(r.morning).toEqual({
      cron: 'weekdays at 07:00',
      timezone: machineTimeZone(),
      prompt: 'CI?',
      deliver: 'telegram:42',
      session: 'fresh',
      timeoutMinutes: 30,
      enabled: true,
      quiet: false,
      catchUpMinutes: 60,
    });
  });

  it('takes the whole example of the issue', () => {
    const morning = {
      cron: '0 7 * * 1-5',
      timezone: 'Europe/Bucharest',
      prompt: 'Summarise the night',
      project: 'api',
      deliver: 'telegram:12345',
      session: 'continue',
      timeoutMinutes: 30,
      enabled: true,
      quiet: false,
      catchUpMinutes: 60,
    };
    expect(schedulesSchema.parse({ morning })).toEqual({ morning });
  });

  it('names the key and says what is wrong', () => {
    expect(problems({ m: { cron: 'every 7 minutes', prompt: 'x', deliver: 'web:a' } })).toEqual([
      'm.cron: every 7 minutes does not divide the hour evenly; use 1, 2, 3, 4, 5, 6, 10, 12, 15, 20 or 30',
    ]);
    expect(
      problems({ m: { cron: '0 7 * * *', timezone: 'Europe/Bucharestt', prompt: 'x', deliver: 'web:a' } }),
    ).toEqual(['m.timezone: is not a time zone the runtime knows; e.g. "Europe/Bucharest" or "UTC"']);
    expect(problems({ m: { cron: '0 7 * * *', prompt: '  ', deliver: 'web:a' } })).toEqual(['m.prompt: is empty']);
    expect(problems({ m: { cron: '0 7 * * *', prompt: 'x' } })).toEqual([
      'm.deliver: is required (or set project): say where the run goes, e.g. "deliver": "telegram:12345"',
    ]);
    expect(problems({ m: { cron: '0 7 * * *', prompt: 'x', deliver: '12345' } })).toEqual([
      'm.deliver: must be a conversation id: <channel>:<chat id>, e.g. telegram:12345',
    ]);
    expect(problems({ m: { cron: '0 7 * * *', prompt: 'x', project: 'api', cronn: '1' } })).toEqual([
      'm.cronn: unknown key',
    ]);
    expect(problems({ m: { cron: '0 7 * * *', prompt: 'x', project: 'api', session: 'new' } })[0]).toMatch(
      /^m\.session: .*"fresh"\|"continue"/,
    );
    expect(problems({ m: { cron: '0 7 * * *', prompt: 'x', project: 'api', catchUpMinutes: -1 } })[0]).toMatch(
      /^m\.catchUpMinutes: /,
    );
    expect(problems({ 'bad name': { cron: '0 7 * * *', prompt: 'x', project: 'api' } })[0]).toMatch(
      /^bad name: must be 1-48 letters/,
    );
  });

  it('checks the projects and channels the schedules name against the rest of the config', () => {
    const schedules: SchedulesConfig = schedulesSchema.parse({
      a: { cron: 'hourly', prompt: 'x', project: 'api', deliver: 'telegram:1' },
      b: { cron: 'hourly', prompt: 'x', project: 'web', deliver: 'discord:2' },
    });
    expect(scheduleReferenceProblems(schedules, { projects: ['api'], channels: ['web', 'telegram'] })).toEqual([
      { path: ['schedules', 'b', 'project'], message: 'no project web in projects (known: api)' },
      {
        path: ['schedules', 'b', 'deliver'],
        message: 'channel discord is not configured (configured: web, telegram)',
      },
    ]);
  });
});
