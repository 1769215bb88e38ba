/**
 * The HTTP API's wire, typed once: every request body, every response body and every event of the
 * stream. The web app (web/src) and the CLI import these types; the handlers build exactly them.
 * Plain types only (no values), so a front end can import this file.
 */
import type { EventDataOf, EventType } from '../gateway/events.js';
import type { StatusReport } from '../gateway/status/report-types.js';

export type * from '../gateway/api/types.js';
export type * from '../gateway/events.js';
export type { CostReport, ProjectCost, SpendFigures, StatusReport } from '../gateway/status/report-types.js';
export type * from '../gateway/steps/types.js';

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

/** POST /api/conversations/:id/permissions/:requestId: `optionId` (allow alone still works, see the README). */
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
}

/** POST /api/conversations/:id/read */
export interface ReadRequest {
  eventId: number;
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
