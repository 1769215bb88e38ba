/** A turn of the persistent session, and the stdin messages it is made of. */
import type { RudderError } from '../../errors.js';
import { TurnBase } from '../common/turn-base.js';
import type { SteerResult } from '../session.js';
import { TurnFrames } from './frames-to-events.js';

/** One user message as written on stdin, and what became of it. */
export interface WireMessage {
  uuid: string;
  inputIds: string[];
  kind: 'turn' | 'steer';
  /** The turn that was running when it was written (undefined between turns). */
  writtenDuring: StreamTurn | undefined;
  /** The turn that took it in, once the CLI did. */
  turn?: StreamTurn;
  settle?: { resolve: (r: SteerResult) => void; reject: (e: RudderError) => void };
}

export class StreamTurn extends TurnBase {
  readonly frames: TurnFrames;
  readonly wire: WireMessage[] = [];

  /** env: the agent's environment, so a failed model request can be explained. */
  constructor(inputIds: string[], env: Record<string, string | undefined>, turnId?: string) {
    super(inputIds, turnId);
    this.frames = new TurnFrames(env);
  }
}
