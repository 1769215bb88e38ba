/**
 * A turn that runs on a node, as the front's lane sees it: the usual Turn handle, fed by the
 * node's events in their order (each numbered within the turn, so a redelivered one is dropped),
 * settled once by the turn's one end event.
 */
import { TurnBase } from '../../agents/common/turn-base.js';
import type { TurnResult } from '../../agents/session.js';
import { errorFromWire, type WireError, type WireTurnEvent } from '../wire.js';

export class RemoteTurn extends TurnBase {
  /** The last event number applied. */
  private seq = 0;
  /** Permission requests this turn opened and nobody answered yet. */
  readonly open = new Set<string>();

  /** Applies one event of the node; false when it was seen already. */
  apply(seq: number, e: WireTurnEvent): boolean {
    if (seq <= this.seq || this.isSettled()) return false;
    this.seq = seq;
    if (e.type === 'started') this.addInputs(e.inputIds);
    if (e.type === 'steer-absorbed') this.addInputs([e.inputId]);
    if (e.type === 'permission') this.open.add(e.request.requestId);
    this.emit(e);
    return true;
  }

  end(result: TurnResult | undefined, error: WireError | undefined): void {
    this.open.clear();
    if (result) {
      this.addInputs(result.inputIds);
      this.succeed(result);
    } else this.fail(errorFromWire(error ?? { code: 'AGENT_TURN_FAILED', message: '', context: {} }));
  }
}
