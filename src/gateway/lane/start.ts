/**
 * Starting a turn, decided. A start has two steps, both run by the lane: first the turn and its inputs'
 * `running` states are written, with the inputs as the agent will see them (a re-run's note, the
 * overflow's heading); then, once that is committed, the inputs are handed to the agent. Nothing
 * reaches the agent that a crash could lose from the store, so a restart re-runs it with a note instead
 * of the agent seeing it twice unannounced. These functions decide what the agent is given, what of it
 * is still to hand over after the commit, and what a failed start means.
 */
import type { UserInput } from '../../agents/session.js';
import { isRudderError } from '../../errors.js';
import type { MessageRow } from '../../store/types.js';
import { composeAgentText, sourceOf } from './agent-text.js';
import { CANNOT_START } from './decide.js';

/**
 * started; failed: no agent can start here (the inputs failed, with a notice) or a stop ended them first;
 * later: they run after the turn the agent started on its own, or once the agent is reachable again.
 */
export type StartOutcome = 'started' | 'failed' | 'later';

/** The inputs as the agent gets them; `rerun` is what a re-run tells the agent (rerun.ts). */
export function turnInputs(
  rows: MessageRow[],
  overflow: boolean,
  rerun: (row: MessageRow) => Pick<UserInput, 'note' | 'inSession'>,
): UserInput[] {
  const inputs: UserInput[] = rows.map((r) => ({
    id: r.id,
    text: composeAgentText(r),
    source: sourceOf(r),
    ...rerun(r),
  }));
  if (overflow) {
    const heading = `[${rows.length} messages arrived while the queue was full; they are merged here]`;
    inputs[0]!.text = `${heading}\n\n${inputs[0]!.text}`;
  }
  return inputs;
}

export type HandOver =
  /** Every input is still `running`: hand them all over. */
  | { do: 'hand-over' }
  /** A /stop since the turn was written ended some of them: only these are handed over. */
  | { do: 'narrow'; live: MessageRow[] }
  /** A /stop ended them all: the turn is discarded, nothing is handed over. */
  | { do: 'discard' };

/** After the commit: what of the written turn is still to hand over, by its inputs' stored states. */
export function decideHandOver(rows: MessageRow[], stateOf: (id: string) => string | undefined): HandOver {
  const live = rows.filter((r) => stateOf(r.id) === 'running');
  if (live.length === rows.length) return { do: 'hand-over' };
  return live.length === 0 ? { do: 'discard' } : { do: 'narrow', live };
}

export type StartFailure =
  /** No agent can start for this conversation until something is fixed: the inputs fail, with a notice. */
  | 'cannot-start'
  /** Its machine is lost: held until it is back, never failed for that alone. */
  | 'unreachable'
  /** AGENT_BUSY (the agent started a turn of its own, a queued steer) and the rest: first in line again. */
  | 'in-front';

/** What an error from getting a session (`handingOver` false) or from handing the turn over means. */
export function decideStartFailure(err: unknown, handingOver: boolean): StartFailure {
  if (isRudderError(err) && CANNOT_START.has(err.code)) return 'cannot-start';
  if (handingOver && isRudderError(err, 'AGENT_UNREACHABLE')) return 'unreachable';
  return 'in-front';
}
