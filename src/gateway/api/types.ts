/**
 * What the gateway's API (api.ts) answers, as plain data: the HTTP layer sends exactly these
 * (src/http/wire.ts re-exports them for the page and the CLI).
 */
import type { TerminalCodex, TerminalPane, TerminalWay } from '../../projects/terminal-types.js';
import type { AckData } from '../events.js';
import type { ReviewRecordView } from '../review/types.js';
import type { PermissionStep, TurnView } from '../steps/types.js';

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

/** GET /api/speech: what the page offers (a record button with stt.command, play buttons with tts.command). */
export interface SpeechInfo {
  transcribe: boolean;
  speak: boolean;
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
  /** No notification is pushed for it, to any device. */
  muted: boolean;
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
  /** A voice note (recorded on the page or sent in a chat), with its transcript once it was transcribed. */
  voice?: { transcript?: string };
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
  /** The review actions (commit, merge, push, pull request, discard) of the same stretch of time. */
  reviews: ReviewRecordView[];
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

/** A Claude Code TUI in a pane of the person's tmux servers: "Continue here" attaches a new conversation to it. */
export interface RunningPaneItem {
  attachable: true;
  /** The tmux server (socket name), the pane's tmux id and the claude's pid: what the attach names. */
  socket: string;
  paneId: string;
  pid: number;
  /** The pane as a person names it: `work:0.1`. */
  label: string;
  /** By the pane classifier: its box takes input, a turn runs, a menu is open, or it is not ready yet. */
  state: 'ready' | 'busy' | 'menu' | 'not-ready';
  cwd: string;
  /** Absent while a startup question shows (no session yet). */
  sessionId?: string;
  lastPrompt?: string;
}

/** A claude process with a session in the project that cannot be attached, and why. */
export interface RunningElsewhereItem {
  attachable: false;
  pid: number;
  sessionId: string;
  cwd: string;
  why: string;
}

/** GET /api/projects/:name/running */
export interface RunningList {
  project: string;
  /** The project lives on this node: what runs is the node's, in its tmux servers (`servers` are its). */
  node?: string;
  /** The person's tmux servers looked in (agent.tmux.discover). */
  servers: string[];
  running: Array<RunningPaneItem | RunningElsewhereItem>;
}

/** POST /api/projects/:name/running/attach: the pane as the list showed it. */
export interface AttachRunningRequest {
  socket: string;
  paneId: string;
  pid: number;
}

export type { TerminalCodex, TerminalPane, TerminalWay } from '../../projects/terminal-types.js';

/** GET /api/conversations/:id/terminal: what `rudder attach` will do, before it does it. */
export interface TerminalPlan {
  way: TerminalWay;
  /** A turn runs: a move waits for it to end (or to be stopped). */
  busy: boolean;
  /** The command that opens it, to copy: `rudder attach <id>`. */
  command: string;
  /** The node the conversation's agent runs on: the command is run on that machine. */
  node?: string;
}

/** POST /api/conversations/:id/terminal, 202: a turn still runs; ask again (the move waits for its end). */
export interface TerminalWaiting {
  way: 'waiting';
  reason: string;
}

export type TerminalAnswer = TerminalPane | TerminalCodex | TerminalWaiting;

/** DELETE /api/conversations/:id/terminal: the messages held while Codex had the thread, run now (-1: none held). */
export interface TerminalBack {
  resumed: number;
}

/** A permission request waiting in a chat's conversation (Telegram, Discord…), which the page may answer too. */
export interface WaitingRequest {
  /** The conversation's channel: telegram, discord, slack, whatsapp. */
  channel: string;
  /** The conversation's id in the gateway (`<channel>:<chat key>`), for the answer's URL. */
  conversationId: string;
  /** Its title (set, or its first message's), or null. */
  title: string | null;
  /** The request as a turn's timeline shows it: tool, whole input (or `inputCut`), options. */
  step: PermissionStep;
}

/** GET /api/permissions: requests waiting in the chats' conversations, oldest first. */
export interface WaitingList {
  requests: WaitingRequest[];
}

/** GET /api/channels: each channel's state, with a pending pairing QR code as SVG (WhatsApp). */
export interface ChannelList {
  channels: Array<{ name: string; state: string; detail?: string; qrSvg?: string }>;
}

/** GET /api/push: whether notifications are on, and the key a browser subscribes with. */
export interface PushInfo {
  enabled: boolean;
  /** The VAPID public key (base64url): the page's `applicationServerKey`; null when off. */
  publicKey: string | null;
  /** Devices subscribed now. */
  subscriptions: number;
  /** A turn running at least this long is pushed when it ends (push.longTurnSeconds). */
  longTurnSeconds: number;
}

/** POST /api/push/subscriptions: a browser's PushSubscription as its toJSON() gives it. */
export interface PushSubscribeRequest {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  expirationTime?: number | null;
}

/** 201 to a subscription: its id, for DELETE /api/push/subscriptions/:subscriptionId. */
export interface PushSubscribed {
  id: string;
}

/** POST /api/push/presence: this page shows `conversationId`, visible, focused and in use (null: it does not). */
export interface PresenceRequest {
  /** The page's own random id (one per open page). */
  viewer: string;
  conversationId: string | null;
}
