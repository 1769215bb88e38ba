/**
 * The gateway's wire as the app sees it: every body and event is the gateway's own type
 * (src/http/wire.ts), imported as types only. What is the app's alone (a message still being
 * sent, the connection banner) is added here.
 */
import type { AckData, WireEvent, HistoryPage as WireHistoryPage } from '../../src/http/wire.js';

export type {
  AckData as Ack,
  ChangeSet,
  ChangesBody,
  ConversationItem,
  DiscardEntry,
  DiscardPreview,
  Disposition,
  FileChange,
  FileDiff,
  HistoryReply as Reply,
  LineCommentBody,
  MergeResult,
  NoticeStep,
  PermissionOption,
  PermissionStep,
  ProjectItem as Project,
  PullRequestAvailability,
  PushResult,
  ReviewActionName,
  ReviewRecordView,
  RunningElsewhereItem,
  RunningList,
  RunningPaneItem,
  Section,
  SendResult,
  SpeechInfo,
  SteerStep,
  Step,
  TextStep,
  ToolStep,
  TurnSummary,
  TurnUsage,
  TurnView,
  WaitingRequest,
} from '../../src/http/wire.js';

/** The gateway's message states, and `sending` while this device's POST has not answered. */
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
  acks: AckData[];
  /** Set while the POST has not answered (the id is a local one until then). */
  local?: boolean;
  /** A voice note (recorded here or sent in a chat), with its transcript once there is one. */
  voice?: { transcript?: string };
}

/** A history page with each message's state as the app knows the states. */
export type HistoryPage = Omit<WireHistoryPage, 'messages'> & {
  messages: Array<WireHistoryPage['messages'][number] & { state: MessageState }>;
};

/** One server-sent event, parsed: the wire's union, discriminated by `type`. */
export type StreamEvent = WireEvent;

/** The event stream's state, for the connection banner. */
export type Connection = 'connecting' | 'live' | 'reconnecting' | 'unreachable' | 'unauthorized';
