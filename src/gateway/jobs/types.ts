/**
 * What the page and the chats are told of schedules and webhooks: plain data, no imports but types (the page
 * imports it through http/wire.ts).
 */

/** How a slot ended: ran, quiet (a heartbeat with nothing to say), skipped (the previous run still ran), missed
 * (Rudder was down), timed_out (stopped by its timeoutMinutes), failed, stopped (by a person); or still running. */
export type RunOutcome = 'running' | 'ran' | 'quiet' | 'skipped' | 'missed' | 'timed_out' | 'failed' | 'stopped';

export interface RunView {
  /** The slot, epoch ms. */
  slot: number;
  outcome: RunOutcome;
  startedAt: number;
  endedAt: number | null;
  /** Where it ran: the conversation id (`<channel>:<key>`). */
  conversationId: string | null;
  /** The page's key of that conversation, when it is a page conversation (a link opens it). */
  pageKey: string | null;
  costUsd: number | null;
  /** Why it failed or was stopped. */
  reason: string | null;
  /** missed: how many slots this row stands for. */
  missedCount: number | null;
}

export interface ScheduleView {
  name: string;
  /** config: in the config file (edit it there); kept: made from a chat or the page, kept in Rudder's store. */
  origin: 'config' | 'kept';
  /** The line as given, and as the cron line it became. */
  line: string;
  cron: string;
  timezone: string;
  prompt: string;
  project: string | null;
  deliver: string | null;
  session: 'fresh' | 'continue';
  quiet: boolean;
  enabled: boolean;
  paused: boolean;
  timeoutMinutes: number;
  catchUpMinutes: number;
  /** The next three slots, epoch ms (none when paused or disabled). */
  next: number[];
  /** The next slot as its zone reads it, with the offset. */
  nextText: string | null;
  last: RunView | null;
  /** The newest slot of the last 7 days that was missed, failed or timed out. */
  problem: RunView | null;
}

/** GET /api/schedules */
export interface ScheduleList {
  schedules: ScheduleView[];
  /** Kept schedules left out (their name is the config's, their project is gone), and why. */
  problems: Array<{ name: string; why: string }>;
}

/** GET /api/schedules/:name/runs */
export interface RunsPage {
  runs: RunView[];
  more: boolean;
}

/** PUT /api/schedules/:name: a kept schedule in the config's shape. */
export interface ScheduleBody {
  cron: string;
  prompt: string;
  timezone?: string;
  project?: string;
  deliver?: string;
  session?: 'fresh' | 'continue';
  quiet?: boolean;
  timeoutMinutes?: number;
  catchUpMinutes?: number;
  enabled?: boolean;
}

/**
 * What an action on a schedule did, in words; a change answers with the schedule as it is now, a run now with the
 * conversation it runs in. A refusal carries its code: no such schedule, a definition that does not check, or an
 * action the schedule's state refuses (a run still running, a schedule of the config file).
 */
export type ScheduleChange =
  | { ok: true; text: string; schedule?: ScheduleView; conversationId?: string }
  | { ok: false; code: 'SCHEDULE_UNKNOWN' | 'SCHEDULE_INVALID' | 'SCHEDULE_REFUSED'; text: string };

/** The status report's line of a schedule. */
export interface ScheduleStatus {
  name: string;
  cron: string;
  timezone: string;
  paused: boolean;
  enabled: boolean;
  /** ISO 8601; null when it will not run (paused, disabled, never again). */
  next: string | null;
  last: { slot: string; outcome: RunOutcome } | null;
  /** The newest missed, failed or timed-out slot of the last 7 days. */
  problem: { slot: string; outcome: RunOutcome; missedCount: number | null; reason: string | null } | null;
}
