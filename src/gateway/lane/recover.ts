/**
 * A message a restart found open (not `accepted`: intake routes those), decided: what was waiting waits
 * again, what was held is held until its time, what a turn had taken in runs again once, unless that
 * turn ran on where Rudder does not (capabilities.reattach): then it is followed again.
 */
import type { MessageRow, TurnRow } from '../../store/types.js';
import { MAX_ATTEMPTS } from './decide.js';
import { type HoldReason, holdOf } from './hold.js';

export type Recovered = 'queued' | 'deferred' | 'rerun' | 'failed' | 'reattached';

export type Recovery =
  /** In line again; `requeue`: its stored state goes back to queued (it was held by a budget). */
  | { do: 'queue'; requeue: boolean }
  /** The lane's hold is taken up again from the message's held_for. */
  | { do: 'hold'; until: number; why: HoldReason; estimated: boolean }
  /** A turn had taken it in: followed again where it still runs, else `otherwise`. */
  | { do: 'follow'; otherwise: 'rerun' | 'fail' };

export function decideRecovery(row: MessageRow, now: number): Recovery {
  // Held by a spent budget: it waits in line, and the budget is asked again before it runs (it may have been raised).
  if (row.state === 'deferred' && row.heldFor === 'budget') return { do: 'queue', requeue: true };
  if (row.state === 'deferred') return { do: 'hold', until: row.retryAt ?? now, ...holdOf(row.heldFor) };
  if (row.state === 'queued') return { do: 'queue', requeue: false };
  // running or steering when Rudder stopped: the turn was cut off, run again once.
  return { do: 'follow', otherwise: row.attempts < MAX_ATTEMPTS ? 'rerun' : 'fail' };
}

/** A turn whose end is stored is over everywhere: a steer it left unsettled was cut off (run again once). */
export function mayFollowAgain(turn: TurnRow | undefined): turn is TurnRow {
  return !!turn && turn.endedAt === null;
}
