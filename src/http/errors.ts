/**
 * HTTP errors: a stable code from src/errors.ts, and the status that code always has, so a status
 * and its code never disagree. Every error body is `{ error: { code, message } }`.
 */
import type http from 'node:http';
import { ERRORS, type ErrorCode, isRudderError } from '../errors.js';

/** The status of every code an HTTP answer carries. */
export const HTTP_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  ORIGIN_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  TTS_NOT_CONFIGURED: 404,
  METHOD_NOT_ALLOWED: 405,
  MESSAGE_NOT_WAITING: 409,
  PUSH_DISABLED: 409,
  PERMISSION_NOT_OFFERED: 400,
  PERMISSION_NOT_SHOWN_WHOLE: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HOST_NOT_ALLOWED: 421,
  INTERNAL_ERROR: 500,
  TTS_FAILED: 502,
  GATEWAY_STARTING: 503,
  // Schedules: none by that name, a definition that does not check, an action its state refuses.
  SCHEDULE_UNKNOWN: 404,
  SCHEDULE_INVALID: 400,
  SCHEDULE_REFUSED: 409,
  // The review of a conversation's work: a missing file is a 404, a state that refuses the action a 409, git's own
  // failure a 500, a git stopped by the gateway's shutdown a 503.
  REVIEW_FILE_UNKNOWN: 404,
  REVIEW_EMPTY_MESSAGE: 400,
  REVIEW_NO_WORKTREE: 409,
  REVIEW_BUSY: 409,
  REVIEW_IN_PROGRESS: 409,
  REVIEW_READ_ONLY: 409,
  REVIEW_NO_IDENTITY: 409,
  REVIEW_NOT_ON_BRANCH: 409,
  REVIEW_BASE_UNKNOWN: 409,
  REVIEW_NOTHING_TO_COMMIT: 409,
  REVIEW_OPERATION_IN_PROGRESS: 409,
  REVIEW_WORKTREE_DIRTY: 409,
  REVIEW_BASE_DIRTY: 409,
  REVIEW_MERGE_FAILED: 409,
  REVIEW_MERGE_NOT_CLEAN: 409,
  REVIEW_NO_REMOTE: 409,
  REVIEW_PUSH_FAILED: 409,
  REVIEW_GH_MISSING: 409,
  REVIEW_GH_LOGGED_OUT: 409,
  REVIEW_PR_FAILED: 409,
  REVIEW_NOT_A_WORKTREE: 409,
  REVIEW_TOO_MANY_FILES: 409,
  REVIEW_CONFIRM_STALE: 409,
  NOT_A_GIT_REPO: 409,
  REVIEW_GIT_FAILED: 500,
  REVIEW_GIT_TIMEOUT: 500,
  GIT_MISSING: 500,
  REVIEW_GIT_STOPPED: 503,
  // The review of a node's project, or what runs on it, while that node cannot be reached.
  AGENT_UNREACHABLE: 503,
  // The page's "Running now": no such project, a pane whose claude has gone or that another conversation drives.
  PROJECT_UNKNOWN: 404,
  PANE_GONE: 409,
  PANE_HELD: 409,
  // Attaching a pane on a node while the conversation's turn runs there.
  AGENT_BUSY: 409,
  // `rudder attach`: a conversation whose session cannot be opened in a terminal here, or is open in one already.
  TERMINAL_UNSUPPORTED: 409,
  TERMINAL_NO_SESSION: 409,
  TERMINAL_NO_PANE: 409,
  TERMINAL_MOVE_FAILED: 500,
  SESSION_IN_TERMINAL: 409,
} as const satisfies Partial<Record<ErrorCode, number>>;

export type HttpErrorCode = keyof typeof HTTP_STATUS;

export class HttpError extends Error {
  readonly status: number;

  constructor(
    readonly code: HttpErrorCode,
    message: string,
  ) {
    super(message);
    this.status = HTTP_STATUS[code];
  }
}

/** A gateway error whose code has an HTTP status (HTTP_STATUS) as the HttpError it is; undefined for any other. */
export function asHttpError(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err;
  if (!isRudderError(err) || !(err.code in HTTP_STATUS)) return undefined;
  return new HttpError(err.code as HttpErrorCode, err.message);
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendError(res: http.ServerResponse, err: HttpError): void {
  sendJson(res, err.status, { error: { code: err.code, message: err.message || ERRORS[err.code] } });
}
