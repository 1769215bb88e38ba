/** Rows of the store, as the rest of Rudder sees them. */
import type { Attachment, ChatType } from '../channels/channel.js';

/** open: accepted, queued, running, steering, deferred. Terminal: the rest. */
export type MessageState =
  | 'accepted' // committed, not yet routed
  | 'queued' // waiting in its lane
  | 'running' // in a turn that is running
  | 'steering' // handed to a running turn, not yet answered
  | 'deferred' // rate limited: re-run on Claude at retry_at
  | 'answered'
  | 'steered' // answered by the turn it was steered into
  | 'merged' // answered by a turn it was merged into
  | 'refused'
  | 'failed'
  | 'stopped'
  | 'command';

export const OPEN_STATES: MessageState[] = ['accepted', 'queued', 'running', 'steering', 'deferred'];

export interface MessageExtra {
  senderName?: string;
  chatType?: ChatType;
  quoted?: { text: string; author?: string };
  attachments?: Attachment[];
  /** Transcript of a voice note, shown to the person with the reply. */
  transcript?: string;
}

export interface MessageRow {
  seq: number;
  id: string;
  conversationId: string;
  channel: string;
  platformMessageId: string;
  senderId: string;
  text: string;
  extra: MessageExtra;
  sentAt: number | null;
  receivedAt: number;
  state: MessageState;
  reason: string | null;
  wasQueued: boolean;
  attempts: number;
  turnId: string | null;
  retryAt: number | null;
}

export interface ConversationRow {
  id: string;
  channel: string;
  key: string;
  title: string | null;
  createdAt: number;
  updatedAt: number;
  sessionId: string | null;
  model: string | null;
  queueMode: string | null;
  cutoffAt: number | null;
}

export interface OutboxRow {
  seq: number;
  id: string;
  conversationId: string;
  kind: 'reply' | 'notice';
  messageIds: string[];
  replyTo: string | null;
  text: string;
  fromFallback: boolean;
  createdAt: number;
  deliveredAt: number | null;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
}

/** A tool call a turn started, as the agent is told about it when the turn runs again. */
export interface ToolCall {
  name: string;
  /** A one-line summary of its input (the command, the file...). */
  input: string;
}

export interface TurnRow {
  id: string;
  conversationId: string;
  startedAt: number;
  endedAt: number | null;
  /** answered | interrupted | failed; null while it runs, or when a restart cut it off. */
  outcome: string | null;
  inputIds: string[];
  sessionId: string | null;
  /** The error code of a failed turn. */
  error: string | null;
  tools: ToolCall[];
}

export type EventType = 'ack' | 'text' | 'reply' | 'permission' | 'error' | 'status';

export interface EventRow {
  seq: number;
  conversationId: string;
  type: EventType;
  messageId: string | null;
  data: Record<string, unknown>;
  createdAt: number;
}
