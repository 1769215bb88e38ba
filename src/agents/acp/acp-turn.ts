/** One ACP turn: the shared Turn handle plus what deciding its outcome needs. */
import { TurnBase } from '../common/turn-base.js';
import { UpdateMapper } from './updates.js';

export class AcpTurn extends TurnBase {
  readonly startedAt = Date.now();
  /** This turn's updates as events; what it said, what it cost. */
  readonly mapper = new UpdateMapper();
  /** The session's cumulative cost when the turn began (the agent reports a running total). */
  costAtStart: number | undefined;
  /** Rudder asked the agent to stop it (a stop, a timeout, the session's stop). */
  cancelRequested = false;
  timedOut = false;
  /** The prompt was sent: the agent holds the inputs from here on. */
  prompted = false;
  /** Inputs steered in and taken (`injected`). */
  steered = 0;
  timer: NodeJS.Timeout | undefined;
}
