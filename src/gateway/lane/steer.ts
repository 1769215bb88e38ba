/**
 * Steering, decided: whether a message may go into the running turn now, and what its record says
 * when the agent ran it as a turn of its own instead (the model was writing text). The lane records
 * the message as steering first and hands it over once that is committed; when the agent cannot take
 * it then (its turn ended, its terminal shows a menu), it waits in line.
 */
import { RAN_AS_TURN } from './decide.js';

/** What happened to a message a lane took: known at once, or once a hand-off after the commit settled it. */
export interface Ticket {
  disposition: 'turn' | 'steered' | 'queued' | 'merged';
}

export interface SteerView {
  steeringOn: boolean;
  /** Why steering is off, for the log line and /status. */
  steeringOffReason: string | undefined;
  /** A session exists and its backend can take a message mid-turn (capabilities.steer). */
  canSteer: boolean;
  /** The agent's current turn, else the turn written and waiting for its commit. */
  turnId: string | undefined;
  /** The sender of that turn's first input, when the lane started it. */
  turnSender: string | undefined;
  /** The message's sender. */
  sender: string;
}

/** Why the message cannot be steered into the running turn now; undefined when it can. */
export function steerBlocker(v: SteerView): string | undefined {
  if (!v.steeringOn) return `steering is off (${v.steeringOffReason ?? 'config'})`;
  if (!v.canSteer) return 'this backend cannot take a message mid-turn';
  // A turn written but not handed over yet counts: the steer is handed over right after it.
  if (!v.turnId) return 'no turn is running yet';
  if (v.turnSender !== undefined && v.turnSender !== v.sender) return "the running turn is another sender's";
  return undefined;
}

/** The store's reason for a steer the agent ran as its next turn, in the backend's words when it gives them. */
export function ranAsTurnReason(why: string | undefined): string {
  return why ? `ran as the next turn (${why})` : RAN_AS_TURN;
}
