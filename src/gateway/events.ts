/**
 * The events of a conversation, as the bus publishes them and the event stream sends them to the page:
 * one discriminated union on `type`. Plain data that imports only other plain data, so the web app
 * imports these types too (through src/http/wire.ts). Events other than streaming text and `status`
 * are written to the store's event log, so a page can replay them after a Last-Event-ID.
 */
import type { AckKind } from '../channels/channel.js';
import type { ReviewEventData } from './review/types.js';
import type { PermissionOption, StepEventData, TurnEventData } from './steps/types.js';

export type { AckKind };

/** A message was received, handed to the running turn, queued, or stopped. */
export interface AckData {
  kind: AckKind;
  emoji: string;
  note?: string;
  /** When it was given, epoch ms (a history page's acks carry it; an event carries it as `at`). */
  at?: number;
}

/** A piece of the text the agent is writing (not stored: the reply carries the whole text). */
export interface TextData {
  delta: string;
  turnId: string;
}

/** A reply or a notice, logged once when delivered. */
export interface ReplyData {
  text: string;
  kind: 'reply' | 'notice';
  messageIds: string[];
  outboxId: string;
  fromFallback: boolean;
}

/** A permission request opened, answered (`resolved`: the option id) or withdrawn (its turn ended). */
export type PermissionData =
  | {
      requestId: string;
      toolName: string;
      input: Record<string, unknown>;
      description?: string;
      options: PermissionOption[];
    }
  | { requestId: string; resolved: string; by: string; delivered: true }
  | { requestId: string; withdrawn: true };

/** A turn failed; `messageIds` are the inputs it did not answer. */
export interface ErrorData {
  code: string;
  message: string;
  messageIds: string[];
}

/** What is happening now (not stored): a tool started, a steer taken in, the agent's own status, the stream. */
export type StatusData =
  | { state: 'tool'; tool: string; turnId: string; input: string }
  | { state: 'steer-absorbed'; turnId: string }
  | { state: 'agent'; message: string; turnId: string; key?: string }
  | { state: 'turn-started'; turnId: string; inputIds: string[] }
  | { state: 'connected'; lastEventId: number };

/** A waiting message was withdrawn or edited by the person, or a voice note was transcribed. */
export interface MessageChangeData {
  state: string;
  text?: string;
  edited?: boolean;
  /** A voice note's transcript, once it is ready. */
  transcript?: string;
}

/** Each event type with its data. */
export interface EventDataOf {
  ack: AckData;
  text: TextData;
  reply: ReplyData;
  permission: PermissionData;
  error: ErrorData;
  status: StatusData;
  step: StepEventData;
  turn: TurnEventData;
  message: MessageChangeData;
  /** A review action (commit, merge, push, pull request, discard) done or failed. */
  review: ReviewEventData;
}

export type EventType = keyof EventDataOf;

/** One event of a conversation; `seq` is absent for those not stored (streaming text, status). */
export type ConversationEvent = {
  [K in EventType]: {
    seq?: number;
    conversationId: string;
    type: K;
    messageId: string | null;
    data: EventDataOf[K];
    createdAt: number;
  };
}[EventType];
