/**
 * What a turn's end means for each of its inputs: pure decisions, from the result or the error, the
 * inputs, what the lane knows of them and the /stop cutoff. The lane applies them (outcome.ts).
 */
import type { TurnResult } from '../../agents/session.js';
import type { ErrorCode } from '../../errors.js';
import type { MessageRow } from '../../store/types.js';

/** A turn cut off by a crash is run again this many times before the person is told it failed. */
export const MAX_ATTEMPTS = 2;

/** The store's reason for a steer that ran as a turn of its own. */
export const RAN_AS_TURN = 'ran as the next turn (sent while the agent was writing its reply)';

/** Errors after which the same inputs run again on the resumed session (once). */
const RERUN: ReadonlySet<string> = new Set([
  'AGENT_CRASHED',
  'AGENT_EOF_WITHOUT_RESULT',
  'AGENT_STDIN_BROKEN',
  'AGENT_SESSION_NOT_FOUND',
]);

/** Errors that mean no agent can be started for this conversation until something is fixed. */
export const CANNOT_START: ReadonlySet<ErrorCode> = new Set([
  'PROJECT_UNAVAILABLE',
  'PROJECT_UNKNOWN',
  'NOT_A_GIT_REPO',
  'WORKTREE_FAILED',
  'GIT_MISSING',
  'SESSION_HELD',
  'SESSION_IN_TERMINAL',
]);

export interface InputFacts {
  /** Inputs the agent took in mid-turn (steer-absorbed). */
  absorbed: ReadonlySet<string>;
  /** Inputs merged into a turn after its first. */
  merged: ReadonlySet<string>;
  /** Steers the agent ran as a turn of their own, each with the reason its record gets. */
  ranAsTurn: ReadonlyMap<string, string>;
  /** Inputs sent before the /stop cutoff in a turn that started after it. */
  stale: ReadonlySet<string>;
  /** A /stop or /clear runs. */
  stopping: boolean;
}

export type InputOutcome =
  | { id: string; as: 'answer' | 'steered' | 'merge'; reason: string | null }
  | { id: string; as: 'stop'; reason: string };

export interface ResultDecision {
  outcomes: InputOutcome[];
  /** Inputs answered by the reply (none for an interrupted turn). */
  answered: string[];
  /** The turn as stored, and as its steps show it. */
  turn: 'answered' | 'interrupted';
  steps: 'answered' | 'stopped';
  /** A turn started where the agent runs (typed in its terminal): its reply is shown, answering no message. */
  unprompted: boolean;
}

/** A result: each input answered, steered or merged; stopped when interrupted or stale. */
export function decideResult(r: Pick<TurnResult, 'inputIds' | 'interrupted'>, f: InputFacts): ResultDecision {
  const ids = r.inputIds.filter((id) => !f.stale.has(id));
  const outcomes: InputOutcome[] = [...f.stale].map((id) => ({ id, as: 'stop', reason: 'stopped on request' }));
  if (r.interrupted) {
    const reason = f.stopping ? 'stopped on request' : 'interrupted';
    outcomes.push(...ids.map((id): InputOutcome => ({ id, as: 'stop', reason })));
  } else {
    for (const id of ids) {
      const as = f.absorbed.has(id) ? 'steered' : f.merged.has(id) ? 'merge' : 'answer';
      outcomes.push({ id, as, reason: f.ranAsTurn.get(id) ?? null });
    }
  }
  const unprompted = !r.interrupted && r.inputIds.length === 0;
  const quiet = r.interrupted || (ids.length === 0 && !unprompted);
  return {
    outcomes,
    answered: r.interrupted ? [] : ids,
    turn: quiet ? 'interrupted' : 'answered',
    steps: quiet ? 'stopped' : 'answered',
    unprompted,
  };
}

export type ErrorDecision =
  /** Held until the limit resets; the fallback model answers meanwhile. */
  | { kind: 'rate-limited' }
  /** The agent's terminal did not take the message: held, tried again after a while. */
  | { kind: 'held-back' }
  /** Rudder is shutting down: the inputs stay open and run again at the next start. */
  | { kind: 'keep-open' }
  /** Ended by /stop or /clear. */
  | { kind: 'stopped' }
  /** Run again (once) or failed with a notice; the saved session is forgotten when it cannot be resumed. */
  | { kind: 'rerun-or-fail'; again: MessageRow[]; failed: MessageRow[]; forgetSession: boolean };

/** An error: by its code, and for a crash by how often each input already ran. */
export function decideError(
  code: string,
  rows: MessageRow[],
  attemptsOf: (row: MessageRow) => number,
  shuttingDown: boolean,
): ErrorDecision {
  if (code === 'AGENT_RATE_LIMITED') return { kind: 'rate-limited' };
  if (code === 'AGENT_NOT_READY' || code === 'AGENT_UNDELIVERED') return { kind: 'held-back' };
  if (code === 'AGENT_STOPPED') return shuttingDown ? { kind: 'keep-open' } : { kind: 'stopped' };
  const again = RERUN.has(code) ? rows.filter((r) => attemptsOf(r) < MAX_ATTEMPTS) : [];
  return {
    kind: 'rerun-or-fail',
    again,
    failed: rows.filter((r) => !again.includes(r)),
    forgetSession: code === 'AGENT_SESSION_NOT_FOUND',
  };
}
