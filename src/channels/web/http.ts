/** Small HTTP helpers: bounded JSON bodies and JSON answers with stable error codes. */
import type http from 'node:http';
import { ERRORS, type ErrorCode } from '../../errors.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
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

/** Reads a JSON object body of at most maxBytes; anything else is a 400 that says what was wrong. */
export async function readJsonObject(req: http.IncomingMessage, maxBytes: number): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      req.resume();
      throw new HttpError(400, 'BAD_REQUEST', `The body is larger than ${Math.round(maxBytes / 1024)} KB.`);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) throw new HttpError(400, 'BAD_REQUEST', 'The body is empty; send a JSON object.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, 'BAD_REQUEST', `The body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HttpError(400, 'BAD_REQUEST', 'The body must be a JSON object.');
  return value as Record<string, unknown>;
}
