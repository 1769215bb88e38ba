/**
 * Where a committed message goes when it reaches its lane, and how it waits: pure decisions from a
 * snapshot of the lane. An idle lane starts a turn. A busy lane, by queue mode:
 *   steer     hand the message to the running turn when the backend can take it now, else followup;
 *   followup  one later turn per message;
 *   collect   messages within a quiet window are merged into one later turn;
 *   interrupt stop the running turn, then run the queue.
 * Steering is only tried with an empty queue: steering past a queued message would overtake it.
 */
import type { QueueMode } from '../../config/schema.js';

export interface ArrivalView {
  /** The lane holds (hold.ts): what arrives is held behind what it holds. */
  held: boolean;
  /** A /stop or /clear runs. */
  stopping: boolean;
  /** The session moves to a terminal (a hand-back). */
  moving: boolean;
  mode: QueueMode;
  /** A turn is written and waiting for its commit, or the agent works on one. */
  busy: boolean;
  /** The review action running on the conversation's tree (asked only when a start depends on it). */
  reviewing: () => string | undefined;
  /** Items waiting in line. */
  waiting: number;
  /** Why the message cannot go into the running turn now (steer.ts); undefined when it can. Asked in steer mode. */
  steerBlocker: () => string | undefined;
}

export type Arrival =
  /** Held with what the lane holds (held.ts). */
  | { to: 'hold' }
  /** Into collect mode's open window. */
  | { to: 'collect' }
  /** A turn of its own now (unless the budget is spent). */
  | { to: 'turn' }
  /** Into the running turn. */
  | { to: 'steer' }
  /** In line, for `reason`; `interrupt`: the running turn is stopped first (interrupt mode). */
  | { to: 'line'; reason: string; interrupt?: true };

export function decideArrival(v: ArrivalView): Arrival {
  if (v.held) return { to: 'hold' };
  // Sent after a /stop that is still running: it waits for the stop instead of joining the turn it ends.
  if (v.stopping) return { to: 'line', reason: 'a stop is running' };
  // Its session is let go and started again in a terminal: the message runs there, in order.
  if (v.moving) return { to: 'line', reason: 'the session is moving to a terminal' };
  if (v.mode === 'collect') return { to: 'collect' };
  if (!v.busy) {
    const reviewing = v.reviewing();
    if (!reviewing && v.waiting === 0) return { to: 'turn' };
    const reason = reviewing ? `waiting for the ${reviewing} of this worktree to end` : 'earlier messages are waiting';
    return { to: 'line', reason };
  }
  if (v.waiting === 0 && v.mode === 'steer') {
    const blocker = v.steerBlocker();
    return blocker ? { to: 'line', reason: `not steered: ${blocker}` } : { to: 'steer' };
  }
  if (v.mode === 'interrupt')
    return { to: 'line', reason: 'interrupt mode: stopping the running turn first', interrupt: true };
  return { to: 'line', reason: v.mode === 'followup' ? 'followup mode' : 'a turn is running' };
}

/** In line: one later turn, or past the queue cap, merged into the overflow item that runs as one turn. */
export function lineFor(depth: number, queueCap: number): 'push' | 'overflow' {
  return depth >= queueCap ? 'overflow' : 'push';
}

/** The ack of a message that waits in line. */
export function queuedNote(depth: number, reason: string): string {
  return `queued (${depth} waiting): ${reason}`;
}

/** The ack of a message merged into the overflow item, with how many others it joins. */
export function overflowNote(queueCap: number, others: number): string {
  return `the queue is full (${queueCap}); this will be merged with ${others} other message(s) into one turn`;
}

/** The ack of a message collect mode keeps for its window. */
export function collectNote(merged: boolean, windowMs: number): string {
  return merged ? 'merged with the messages just before it' : `collecting messages for ${windowMs} ms`;
}
