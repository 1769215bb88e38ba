/** Rows of the store, as the rest of Rudder sees them. */

export type ChatType = 'direct' | 'group';

export interface Attachment {
  kind: 'image' | 'document' | 'audio' | 'voice' | 'video';
  /** Absolute path under the data dir where the file was saved. */
  path: string;
  name: string;
  mime?: string;
  size?: number;
}

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
  | 'withdrawn' // taken back (or replaced) by the person before it ran
  | 'command';

export const OPEN_STATES: MessageState[] = ['accepted', 'queued', 'running', 'steering', 'deferred'];

/**
 * Why a deferred message is held: a rate limit (its reset time known or estimated), the agent's terminal, its
 * project's daily budget (budget.dailyUsd) being spent, or an agent that cannot be reached (its machine is lost).
 */
export const HELD_FOR = [
  'rate-limit',
  'rate-limit-estimated',
  'agent-terminal',
  'budget',
  'agent-unreachable',
  'terminal-open',
] as const;
export type HeldFor = (typeof HELD_FOR)[number];

/**
 * Where a message from a source that is not a person came from: a schedule's slot or a webhook's delivery. Such a
 * message is stored with the source's kind as its channel (`schedule`, `hook`) and the source's name as its sender,
 * so it reaches the agent as external content from `schedule:<name>` or `hook:<name>`; it is never a command.
 */
export interface JobTag {
  kind: 'schedule' | 'hook';
  name: string;
  /** A schedule's slot, epoch ms. */
  slot?: number;
  /** A heartbeat (`quiet`): a reply that is only the quiet word is not delivered. */
  quiet?: boolean;
  /** Also delivered to: the schedule's `deliver`, for a run in a conversation of its own. */
  copyTo?: string;
  /** What the copy is headed with, so the chat knows which run it answers. */
  copyHeading?: string;
  /** A webhook's GitHub event (check_run, pull_request_review...). */
  event?: string;
}

/** A message from a schedule or a webhook: no platform message to react to or reply to, never a command. */
export function isJobMessage(row: Pick<MessageRow, 'extra'>): boolean {
  return row.extra.job !== undefined;
}

export interface MessageExtra {
  senderName?: string;
  chatType?: ChatType;
  quoted?: { text: string; author?: string };
  attachments?: Attachment[];
  /** Transcript of a voice note, shown to the person with the reply. */
  transcript?: string;
  /** A message from a schedule or a webhook (JobTag). */
  job?: JobTag;
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
  /** Why a deferred message is held; null otherwise. */
  heldFor: HeldFor | null;
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
  /** The project it works in; null until its first turn or an explicit choice. */
  project: string | null;
  /** When the person archived it (listed apart); null when active. */
  archivedAt: number | null;
  /** The last event seq the person has seen (the web app sets it): a later reply is unread. */
  lastReadSeq: number;
}

/** What a conversation list shows besides the row: its last activity and newest reply. */
export interface ConversationActivity {
  lastEventSeq: number;
  lastActivityAt: number | null;
  lastReplySeq: number;
  /** The first message's text, for a conversation without a title. */
  firstText: string | null;
}

export type OutboxKind = 'reply' | 'notice' | 'voice';

export interface OutboxRow {
  seq: number;
  id: string;
  conversationId: string;
  /** voice: the reply's text again, to be sent spoken (tts.command) after it; its audio is made at delivery. */
  kind: OutboxKind;
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

export type EventType =
  | 'ack'
  | 'text'
  | 'reply'
  | 'permission'
  | 'error'
  | 'status'
  | 'step'
  | 'turn'
  | 'message'
  | 'review';

export interface EventRow {
  seq: number;
  conversationId: string;
  type: EventType;
  messageId: string | null;
  data: Record<string, unknown>;
  createdAt: number;
}

export interface TurnRow {
  id: string;
  conversationId: string;
  startedAt: number;
  endedAt: number | null;
  /** answered | interrupted | failed; null while running (or cut off by a stop of Rudder). */
  outcome: string | null;
  steered: number;
  inputIds: string[];
  sessionId: string | null;
  /** The error code of a failed turn. */
  error: string | null;
  /** The tool calls it started (at most 20), named to the agent when it runs again. */
  tools: ToolCall[];
  /** The project it ran in (null for turns recorded before costs were). */
  project: string | null;
  /** What it used, as its backend reported; null when it ended without a result (failed, cut off). */
  cost: TurnCost | null;
}

/** One model's share of a turn. */
export interface ModelCost {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** USD; null when not reported. */
  costUsd: number | null;
}

/** A turn's usage and cost, as stored. */
export interface TurnCost {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** USD; null when the backend reports no cost (Codex, the terminal backend): "cost unknown", never 0. */
  costUsd: number | null;
  /** By model, when the backend names them. */
  models: Record<string, ModelCost> | null;
  /** How long the agent says it worked on the turn, ms. */
  durationMs: number;
}

/** A sum of turns' costs over some stretch (a day, a project, a conversation). */
export interface Spend {
  /** USD of the turns whose cost is known. */
  usd: number;
  /** Turns ended with a result. */
  turns: number;
  /** Of those, turns whose backend reported no cost (Codex, the terminal backend): not in usd. */
  turnsWithoutCost: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
}
