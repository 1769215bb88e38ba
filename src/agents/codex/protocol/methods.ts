/**
 * The part of the app-server protocol Rudder speaks, typed from the generated types of the pinned
 * version (./generated, `npm run codex:protocol`). Requests Rudder sends, the notifications it
 * reads and the server requests it answers; everything else is logged and skipped.
 */
import type {
  ClientInfo,
  InitializeParams,
  InitializeResponse,
  ServerNotification,
  ServerRequest,
  v2,
} from './generated/index.js';

export type { ClientInfo, v2 };

/** Client → server requests, by method: what goes in and what comes back. */
export interface ClientMethods {
  initialize: { params: InitializeParams; result: InitializeResponse };
  'thread/start': { params: v2.ThreadStartParams; result: v2.ThreadStartResponse };
  'thread/resume': { params: v2.ThreadResumeParams; result: v2.ThreadResumeResponse };
  'thread/unsubscribe': { params: v2.ThreadUnsubscribeParams; result: v2.ThreadUnsubscribeResponse };
  'thread/read': { params: v2.ThreadReadParams; result: v2.ThreadReadResponse };
  'thread/list': { params: v2.ThreadListParams; result: v2.ThreadListResponse };
  'turn/start': { params: v2.TurnStartParams; result: v2.TurnStartResponse };
  'turn/steer': { params: v2.TurnSteerParams; result: v2.TurnSteerResponse };
  'turn/interrupt': { params: v2.TurnInterruptParams; result: v2.TurnInterruptResponse };
  'account/read': { params: v2.GetAccountParams; result: v2.GetAccountResponse };
}

export type ClientMethod = keyof ClientMethods;
export type ParamsOf<M extends ClientMethod> = ClientMethods[M]['params'];
export type ResultOf<M extends ClientMethod> = ClientMethods[M]['result'];

/** Client → server notifications. */
export type ClientNotificationMethod = 'initialized';

export type Notification = ServerNotification;
export type NotificationMethod = Notification['method'];
export type NotificationParams<M extends NotificationMethod> = Extract<Notification, { method: M }>['params'];

/** Server → client requests (the id is answered with a result or an error). */
export type ServerRequestMethod = ServerRequest['method'];
export type ServerRequestParams<M extends ServerRequestMethod> = Extract<ServerRequest, { method: M }>['params'];

/**
 * A command approval as 0.171 sends it: `availableDecisions` is typed only in the experimental
 * schema, but the server sends it to every client, and it lists the decisions it wants offered.
 */
export type CommandApprovalParams = v2.CommandExecutionRequestApprovalParams & {
  availableDecisions?: v2.CommandExecutionApprovalDecision[] | null;
};

export type ThreadItem = v2.ThreadItem;
export type ItemOf<T extends ThreadItem['type']> = Extract<ThreadItem, { type: T }>;

/** How Rudder introduces itself (clientInfo.name reaches the model provider as the originator). */
export const CLIENT_INFO: ClientInfo = { name: 'rudder', title: 'Rudder', version: '0.1.0' };

/** The thread a notification is about, when it names one (account-wide ones do not). */
export function threadOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const p = params as { threadId?: unknown; thread?: { id?: unknown } };
  if (typeof p.threadId === 'string') return p.threadId;
  return typeof p.thread?.id === 'string' ? p.thread.id : undefined;
}

/** One text input, as turn/start and turn/steer take it. */
export function textInput(text: string): v2.UserInput {
  return { type: 'text', text, text_elements: [] };
}
