/**
 * HTTP errors: a stable code from src/errors.ts, and the status that code always has, so a status
 * and its code never disagree. Every error body is `{ error: { code, message } }`.
 */
import type http from 'node:http';
import { ERRORS, type ErrorCode } from '../errors.js';

/** The status of every code an HTTP answer carries. */
export const HTTP_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  ORIGIN_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
  TTS_NOT_CONFIGURED: 404,
  METHOD_NOT_ALLOWED: 405,
  MESSAGE_NOT_WAITING: 409,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HOST_NOT_ALLOWED: 421,
  INTERNAL_ERROR: 500,
  TTS_FAILED: 502,
  GATEWAY_STARTING: 503,
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
