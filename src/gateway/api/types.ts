/**
 * What the gateway's API (api.ts) answers, as plain data: the HTTP layer sends exactly these
 * (src/http/wire.ts re-exports them for the page and the CLI).
 */
import type { AckData } from '../events.js';
import type { TurnView } from '../steps/types.js';

export type Disposition = 'turn' | 'steered' | 'queued' | 'merged' | 'command' | 'refused' | 'duplicate';

/** 202 to a sent message: what happened to it. */
export interface SendResult {
  messageId: string;
  disposition: Disposition;
  reason?: string;
}

/** DELETE or PATCH of a waiting message: it as it is now. */
export interface WaitingMessageBody {
  messageId: string;
  state: string;
  text: string;
}

/** POST /api/conversations/:id/stop */
export interface StopBody {
  stopped: boolean;
  notice: string;
}

export interface ConversationItem {
  id: string;
  title: string | null;
  createdAt: number;
  lastActivityAt: number;
  unread: boolean;
  archived: boolean;
  /** The newest event; POST …/read with it marks everything read. */
  lastEventId: number;
  sessionId: string | null;
  /** The project it works in (GET /api/projects lists them). */
  project: string;
  /** Its git branch, in a project with a worktree per conversation once it has one; else null. */
  branch: string | null;
  /** A permission request waits for the person's answer. */
  waiting: boolean;
}

export interface ConversationList {
  conversations: ConversationItem[];
}

export interface CreatedConversation {
  id: string;
  project: string;
}

export interface HistoryMessage {
  id: string;
  text: string;
  state: string;
  reason: string | null;
  receivedAt: number;
  turnId: string | null;
  acks: AckData[];
}

export interface HistoryReply {
  id: string;
  kind: 'reply' | 'notice';
  text: string;
  messageIds: string[];
  fromFallback: boolean;
  at: number;
}

/** GET /api/conversations/:id/messages?before=&limit= */
export interface HistoryPage {
  messages: HistoryMessage[];
  replies: HistoryReply[];
  turns: TurnView[];
  /** Whether older messages exist; page back with ?before=<before>. */
  more: boolean;
  before: number | null;
  /** The newest page only: the event id to follow on from (Last-Event-ID). */
  lastEventId?: number;
}

/** GET /api/conversations/:id/turns?before=&limit= */
export interface TurnsPage {
  turns: TurnView[];
  more: boolean;
}

export interface ProjectItem {
  name: string;
  /** Its directory ('' for a project on a node: the node knows it). */
  path: string;
  worktrees: boolean;
  /** The node (machine) it lives on, when not this one. */
  node?: string;
}

/** GET /api/projects */
export interface ProjectList {
  projects: ProjectItem[];
  defaultProject: string;
}

/** GET /api/channels: each channel's state, with a pending pairing QR code as SVG (WhatsApp). */
export interface ChannelList {
  channels: Array<{ name: string; state: string; detail?: string; qrSvg?: string }>;
}
