/**
 * The gateway's wire shapes as the app sees them. A turn's steps are the gateway's own contract
 * (src/gateway/steps/types.ts), imported as types only; the rest mirrors the README's HTTP API.
 */
export type {
  NoticeStep,
  PermissionOption,
  PermissionStep,
  SteerStep,
  Step,
  TextStep,
  ToolStep,
  TurnSummary,
  TurnView,
} from '../../src/gateway/steps/types.js';

export interface Ack {
  kind: 'received' | 'steered' | 'queued' | 'stopped' | string;
  emoji: string;
  note?: string;
}

export type MessageState =
  | 'sending'
  | 'accepted'
  | 'queued'
  | 'running'
  | 'steering'
  | 'deferred'
  | 'answered'
  | 'steered'
  | 'merged'
  | 'refused'
  | 'failed'
  | 'stopped'
  | 'withdrawn'
  | 'command';

export interface Message {
  id: string;
  text: string;
  state: MessageState;
  reason: string | null;
  /** Server time when known (history, the received ack), else the device's. */
  receivedAt: number;
  acks: Ack[];
  /** Set while the POST has not answered (the id is a local one until then). */
  local?: boolean;
}

export interface Reply {
  id: string;
  kind: 'reply' | 'notice';
  text: string;
  messageIds: string[];
  fromFallback: boolean;
  at: number;
}

export interface HistoryPage {
  messages: Array<Omit<Message, 'state'> & { state: MessageState; turnId: string | null }>;
  replies: Reply[];
  turns: import('../../src/gateway/steps/types.js').TurnView[];
  more: boolean;
  before: number | null;
  lastEventId?: number;
}

export interface ConversationItem {
  id: string;
  title: string | null;
  createdAt: number;
  lastActivityAt: number;
  unread: boolean;
  archived: boolean;
  lastEventId: number;
  project?: string | null;
}

export interface Project {
  name: string;
  path: string;
  worktrees?: boolean;
}

export type Disposition = 'turn' | 'steered' | 'queued' | 'merged' | 'command' | 'refused' | 'duplicate';

export interface SendResult {
  messageId: string;
  disposition: Disposition;
  reason?: string;
}

/** One server-sent event, parsed. */
export interface StreamEvent {
  id?: number;
  type: string;
  data: Record<string, unknown>;
}

/** The event stream's state, for the connection banner. */
export type Connection = 'connecting' | 'live' | 'reconnecting' | 'unreachable' | 'unauthorized';
