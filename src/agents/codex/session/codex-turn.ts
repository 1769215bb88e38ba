/** A turn of a Codex session, and the steers handed to it. */
import type { RudderError } from '../../../errors.js';
import { TurnBase } from '../../common/turn-base.js';
import type { SteerResult, UserInput } from '../../session.js';
import { TurnItems } from './items-to-events.js';

/** A message handed to a running turn through turn/steer, and what became of it. */
export interface SteerMsg {
  clientId: string;
  input: UserInput;
  /** The turn that was running when the person sent it (none: it was sent for the next turn). */
  writtenDuring: CodexTurn | undefined;
  /** The turn it is (to be) steered into; a refused steer moves on to the next one. */
  target: CodexTurn | undefined;
  /**
   * queued: waits for its turn to open (turn/started); sending: turn/steer is on its way; accepted:
   * codex took the request; settled: taken in (the userMessage item came), run as a turn, or lost.
   */
  state: 'queued' | 'sending' | 'accepted' | 'settled';
  /** A stop withdrew it while its turn/steer was on its way. */
  cancelled?: boolean;
  settle: { resolve: (r: SteerResult) => void; reject: (e: RudderError) => void };
}

export class CodexTurn extends TurnBase {
  /** Codex's turn id, from the turn/start response or turn/started, whichever comes first. */
  codexTurnId: string | undefined;
  /** turn/started came: codex takes steers only from then on. */
  open = false;
  /** The client id of the turn's own input (turn/start). */
  clientId: string | undefined;
  /** The interrupt also withdraws steers not taken in yet (/stop). */
  cancelQueued = false;
  readonly startedAt = Date.now();
  readonly items = new TurnItems();
  readonly steers: SteerMsg[] = [];
  /** Inputs steered into this turn while it ran. */
  steered = 0;
}
