/**
 * A scheduled run has a deadline: past `timeoutMinutes` from its start it is stopped as /stop stops a turn, and
 * the target is told. The deadline is a time, so the runner arms one timer for it and never polls.
 */
import type { ErrorCode } from '../errors.js';

export type TimeoutCheck =
  | { kind: 'within'; leftMs: number }
  | { kind: 'overdue'; code: Extract<ErrorCode, 'SCHEDULE_TIMEOUT'>; text: string };

/** The instant (epoch ms) a run started at `startedAt` is stopped. */
export function deadlineOf(startedAt: number, timeoutMinutes: number): number {
  return startedAt + timeoutMinutes * 60_000;
}

/** Whether a run started at `startedAt` may go on at `now`. */
export function checkTimeout(name: string, startedAt: number, timeoutMinutes: number, now: number): TimeoutCheck {
  const left = deadlineOf(startedAt, timeoutMinutes) - now;
  if (left > 0) return { kind: 'within', leftMs: left };
  const minutes = timeoutMinutes === 1 ? '1 minute' : `${timeoutMinutes} minutes`;
  return {
    kind: 'overdue',
    code: 'SCHEDULE_TIMEOUT',
    text: `Schedule ${name}: the run was stopped after ${minutes} (its timeoutMinutes).`,
  };
}
