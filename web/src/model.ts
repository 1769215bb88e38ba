/**
 * The page's own view of a message, on top of the wire's Message (types.ts): where an unsent one
 * stands on this device, and when each acknowledgement arrived (live events carry a time; a
 * history page does not).
 */
import type { Ack, Message } from './types.js';

/** An acknowledgement with the time it arrived, when the event said. */
export type TimedAck = Ack & { at?: number };

/**
 * Why a message this device wrote has not reached the gateway: `offline` waits for it to be reachable and is sent
 * again by itself; `failed` was refused (its reason says why) and waits for Retry, Edit or Delete.
 */
export type Unsent = 'offline' | 'failed';

export interface ChatMessage extends Message {
  acks: TimedAck[];
  unsent?: Unsent;
  /** What this device saw happen to it that the history does not keep (an edit while it waited). */
  seen?: Array<{ kind: 'edited'; at: number }>;
}
