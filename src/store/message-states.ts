/**
 * How a message's state changes: every change is a named transition, allowed only from the states
 * this table lists. A terminal message (answered, stopped, failed…) never changes again; a change
 * that is not allowed leaves the row as it is. Why a message is held is data (`held_for`), not text.
 */
import { type MessageState, OPEN_STATES } from './types.js';

export { HELD_FOR, type HeldFor } from './types.js';

export const TRANSITIONS = {
  /** Waits in its lane. */
  queue: { to: 'queued', from: OPEN_STATES },
  /** Handed to a turn that starts with it (counts as an attempt). */
  run: { to: 'running', from: OPEN_STATES },
  /** Handed to the running turn (counts as an attempt). */
  steer: { to: 'steering', from: OPEN_STATES },
  /** The agent ran a steer as its next turn instead. */
  ranAsTurn: { to: 'running', from: ['steering'] },
  answer: { to: 'answered', from: OPEN_STATES },
  /** Answered by the turn it was steered into. */
  steered: { to: 'steered', from: OPEN_STATES },
  /** Answered by a turn it was merged into. */
  merge: { to: 'merged', from: OPEN_STATES },
  /** Held until retry_at, for the reason in held_for. */
  hold: { to: 'deferred', from: OPEN_STATES },
  stop: { to: 'stopped', from: OPEN_STATES },
  fail: { to: 'failed', from: OPEN_STATES },
  /** Taken back by the person while it waited. */
  withdraw: { to: 'withdrawn', from: ['queued', 'deferred'] },
  /** A command from someone who may not run commands. */
  refuse: { to: 'refused', from: ['accepted'] },
  /** A command, run when it arrived. */
  command: { to: 'command', from: ['accepted'] },
} as const satisfies Record<string, { to: MessageState; from: readonly MessageState[] }>;

export type Transition = keyof typeof TRANSITIONS;

/** Whether `transition` may move a message in state `from`. */
export function allowed(transition: Transition, from: MessageState): boolean {
  return (TRANSITIONS[transition].from as readonly MessageState[]).includes(from);
}
