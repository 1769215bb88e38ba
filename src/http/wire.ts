/**
 * The HTTP API's wire, typed once: every request body, every response body and every event of the
 * stream. The web app (web/src) and the CLI import these types; the handlers build exactly them.
 * Plain types only (no values), so a front end can import this file.
 */
import type { EventDataOf, EventType } from '../gateway/events.js';
import type { StatusReport } from '../gateway/status/report-types.js';
import type { Section } from '../projects/changes/types.js';

export type * from '../gateway/api/types.js';
export type * from '../gateway/events.js';
export type * from '../gateway/jobs/types.js';
export type * from '../gateway/notify/payload.js';
export type * from '../gateway/review/types.js';
export type { CostReport, ProjectCost, SpendFigures, StatusReport } from '../gateway/status/report-types.js';
export type * from '../gateway/steps/types.js';
export type * from '../projects/changes/types.js';

// ---- errors ----

/** Every error answer. `code` is a stable code (src/errors.ts); its status is always the same. */
export interface ErrorBody {
  error: { code: string; message: string };
}

// ---- messages ----

/** POST /api/conversations/:id/messages */
export interface SendMessageRequest {
  text: string;
  /** Makes a resend idempotent: the same id is the same message. */
  clientMessageId?: string;
}

/** PATCH /api/conversations/:id/messages/:messageId */
export interface EditMessageRequest {
  text: string;
}

/** POST /api/conversations/:id/permissions/:requestId: `optionId` (`allow` alone is deprecated: docs/http-api.md). */
export interface AnswerPermissionRequest {
  optionId?: string;
  /** Deprecated: true answers `allow`, false `deny`; used only when optionId is absent. */
  allow?: boolean;
}

export interface OkBody {
  ok: true;
}

// ---- conversations ----

/** POST /api/conversations */
export interface CreateConversationRequest {
  title?: string;
  project?: string;
}

/** PATCH /api/conversations/:id */
export interface PatchConversationRequest {
  title?: string;
  archived?: boolean;
  /** No notification is pushed for it (to any device). */
  muted?: boolean;
}

/** POST /api/push/test */
export interface PushTestResult {
  devices: number;
}

/** POST /api/conversations/:id/read */
export interface ReadRequest {
  eventId: number;
}

// ---- the review of a conversation's work (its worktree) ----

/** One line comment: the file, its section, the side its line numbers count on, the line or range, the comment. */
export interface LineCommentBody {
  path: string;
  /** The path before a rename, so the two sides pair up. */
  oldPath?: string;
  section: Section;
  /** `new`: the numbers of the file after the change (added and context lines); `old`: before it (a removed line). */
  side: 'new' | 'old';
  line: number;
  endLine?: number;
  text: string;
}

/** POST /api/conversations/:id/changes/comments → 202 SendResult: the comments reach the agent as one message. */
export interface CommentsRequest {
  comments: LineCommentBody[];
  clientMessageId?: string;
}

/**
 * POST /api/conversations/:id/changes/resolve-conflict → 202 SendResult: one message asks the agent to resolve the
 * conflict a merge named in these files, with what the base changed in them.
 */
export interface ResolveConflictRequest {
  files: string[];
  clientMessageId?: string;
}

/** POST /api/conversations/:id/changes/commit */
export interface CommitRequest {
  message: string;
}

/** POST /api/conversations/:id/changes/push: this branch (the default), or the base branch after a merge. */
export interface PushRequest {
  which?: 'branch' | 'base';
}

/** POST /api/conversations/:id/changes/pull-request: without a title, gh fills title and body from the commits. */
export interface PullRequestRequest {
  title?: string;
  body?: string;
  draft?: boolean;
}

/** POST /api/conversations/:id/changes/discard: the token of the list GET …/changes/discard showed. */
export interface DiscardRequest {
  confirm: string;
}

// ---- the rest ----

/** GET /api/status */
export type StatusBody = StatusReport;

// ---- the event stream ----

/** What every event's data carries besides its own fields. */
export interface EventEnvelope {
  messageId: string | null;
  /** The event's id in the log (absent for text and status, which are not stored). */
  seq?: number;
  /** When it happened, epoch ms. */
  at: number;
}

/** One event of GET /api/conversations/:id/events, as the page parses it: `id` is the SSE id. */
export type WireEvent = {
  [K in EventType]: { type: K; id?: number; data: EventDataOf[K] & EventEnvelope };
}[EventType];
