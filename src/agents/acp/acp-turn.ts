/** One ACP turn: the shared Turn handle (its stop asked, timeout and timer included) plus what its outcome needs. */
import { TurnBase } from '../common/turn-base.js';
import { UpdateMapper } from './updates.js';

export class AcpTurn extends TurnBase {
  readonly startedAt = Date.now();
  /** This turn's updates as events; what it said, what it cost. */
  readonly mapper = new UpdateMapper();
  /** The session's cumulative cost when the turn began (the agent reports a running total). */
  costAtStart: number | undefined;
  /** The prompt was sent: the agent holds the inputs from here on. */
  prompted = false;
  /** Inputs steered in and taken (`injected`). */
  steered = 0;
}
