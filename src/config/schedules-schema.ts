/**
 * Config schema for `schedules`: named prompts a clock sends. Standalone, so the config's schema can take it as one
 * key; it imports nothing of the config, only the schedule's own readers. Objects are strict: an unknown key is an
 * error naming the key. What needs the rest of the config (the project exists, the channel is configured) is
 * `scheduleReferenceProblems`, for the config's own cross-checks.
 *
 *   "schedules": {
 *     "morning": { "cron": "weekdays at 07:00", "timezone": "Europe/Bucharest", "prompt": "Summarise the night's CI",
 *                  "project": "api", "deliver": "telegram:12345", "session": "fresh", "timeoutMinutes": 30,
 *                  "enabled": true, "quiet": false, "catchUpMinutes": 60 }
 *   }
 */
import { z } from 'zod';
import { readSchedule } from './schedule-line/line.js';
import { isTimeZone, machineTimeZone } from './schedule-line/zone.js';

/**
 * A schedule's (or a hook's) name: in `schedule:<name>`, in its firings' keys, in /status, and in the key of the page
 * conversation its runs go to (`s-<name>-<slot>`, within the page's 64 characters).
 */
export const scheduleNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,47}$/,
    'must be 1-48 letters, digits, ".", "_" or "-", starting with a letter or digit',
  );

/** A conversation id: `<channel>:<chat key>`, as intake makes them (telegram:12345, web:3f2a...). */
export const conversationIdSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,31}:\S{1,200}$/, 'must be a conversation id: <channel>:<chat id>, e.g. telegram:12345');

export const MAX_PROMPT_CHARS = 20_000;

export const scheduleSchema = z
  .object({
    /** A cron line ("0 7 * * 1-5") or a plain form ("weekdays at 07:00"); read in `timezone`. */
    cron: z.string().min(1, 'is empty; write a cron line ("0 7 * * 1-5") or a form such as "weekdays at 07:00"'),
    /** IANA time zone of the cron line; default: this machine's zone. */
    timezone: z
      .string()
      .refine(isTimeZone, 'is not a time zone the runtime knows; e.g. "Europe/Bucharest" or "UTC"')
      .default(() => machineTimeZone()),
    /** The message the agent gets at each slot (wrapped as external content from schedule:<name>). */
    prompt: z.string().trim().min(1, 'is empty').max(MAX_PROMPT_CHARS),
    /** The project the run works in; default: the conversation's. */
    project: z.string().min(1).optional(),
    /** The conversation that gets the message and the reply: `<channel>:<chat id>` (telegram:12345, web:...). */
    deliver: conversationIdSchema.optional(),
    /** fresh: each run starts a new agent session (as /clear); continue: it goes on in the conversation's. */
    session: z.enum(['fresh', 'continue']).default('fresh'),
    /** A run going past this is stopped (as /stop) and reported. */
    timeoutMinutes: z
      .number()
      .positive()
      .max(24 * 60)
      .default(30),
    enabled: z.boolean().default(true),
    /** Heartbeat: a reply that is only the quiet word is not delivered; the run shows as quiet. */
    quiet: z.boolean().default(false),
    /** A slot missed while Rudder was down runs once at start if younger than this; else it is recorded as missed. */
    catchUpMinutes: z
      .number()
      .min(0)
      .max(7 * 24 * 60)
      .default(60),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.deliver === undefined && s.project === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['deliver'],
        message: 'is required (or set project): say where the run goes, e.g. "deliver": "telegram:12345"',
      });
    if (!isTimeZone(s.timezone)) return;
    const read = readSchedule(s.cron, s.timezone);
    if (!read.ok) ctx.addIssue({ code: 'custom', path: ['cron'], message: read.problem });
  });

export const schedulesSchema = z.record(scheduleNameSchema, scheduleSchema);

export type ScheduleConfig = z.infer<typeof scheduleSchema>;
export type SchedulesConfig = z.infer<typeof schedulesSchema>;

/** The names the rest of the config gives: its projects and the channels a conversation can be in. */
export interface KnownNames {
  projects: readonly string[];
  channels: readonly string[];
}

export interface ReferenceProblem {
  path: Array<string | number>;
  message: string;
}

/** What the rest of the config must hold for the schedules: their projects and their channels. */
export function scheduleReferenceProblems(schedules: SchedulesConfig, known: KnownNames): ReferenceProblem[] {
  return Object.entries(schedules).flatMap(([name, s]) => targetProblems(['schedules', name], s, known));
}

/** A schedule's or a hook's `project` and `deliver` against the projects and channels the config has. */
export function targetProblems(
  at: Array<string | number>,
  t: { project?: string; deliver?: string },
  known: KnownNames,
): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  if (t.project !== undefined && !known.projects.includes(t.project))
    problems.push({
      path: [...at, 'project'],
      message: `no project ${t.project} in projects (known: ${known.projects.join(', ') || 'none'})`,
    });
  const channel = t.deliver?.slice(0, t.deliver.indexOf(':'));
  if (channel !== undefined && !known.channels.includes(channel))
    problems.push({
      path: [...at, 'deliver'],
      message: `channel ${channel} is not configured (configured: ${known.channels.join(', ') || 'none'})`,
    });
  return problems;
}
