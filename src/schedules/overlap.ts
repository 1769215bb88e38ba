/**
 * A slot whose schedule's previous run is still running is skipped, and the target is told which run holds it:
 * two runs of one schedule never share a conversation's turn, and a slow run never piles up a queue of its own.
 */

import { formatLocal } from '../config/schedule-line/zone.js';
import type { ErrorCode } from '../errors.js';

export interface RunningRun {
  /** The slot (epoch ms) of the run still going. */
  slot: number;
  /** When it started (epoch ms): a catch-up run starts after its slot. */
  startedAt: number;
}

export type OverlapDecision =
  | { kind: 'run' }
  | { kind: 'skip'; code: Extract<ErrorCode, 'SCHEDULE_OVERLAP'>; running: RunningRun; text: string };

/** Run the slot, or skip it because `running` still runs; `timezone` is the schedule's, for the text. */
export function overlapDecision(
  name: string,
  slot: number,
  running: RunningRun | undefined,
  timezone: string,
): OverlapDecision {
  if (!running) return { kind: 'run' };
  const text =
    `Schedule ${name}: the run of ${formatLocal(slot, timezone)} was skipped, because the run of ` +
    `${formatLocal(running.slot, timezone)} (started ${formatLocal(running.startedAt, timezone)}) is still running.`;
  return { kind: 'skip', code: 'SCHEDULE_OVERLAP', running, text };
}
