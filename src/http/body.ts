/**
 * Request bodies and query parameters: bounded JSON objects, the fields a route allows, and each
 * field checked with a 400 that names it and says what it must be.
 */
import type http from 'node:http';
import { MAX_TEXT_BYTES, textProblem } from '../gateway/intake/text-checks.js';
import { HttpError } from './errors.js';

export type Body = Record<string, unknown>;

/** JSON escaping can grow text up to 6x; the text limit itself is checked after parsing. */
export const MAX_TEXT_BODY = MAX_TEXT_BYTES * 6 + 4096;

/** Reads a JSON object body of at most maxBytes; anything else is a 400 that says what was wrong. */
export async function readJsonObject(req: http.IncomingMessage, maxBytes: number): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      req.resume();
      throw new HttpError('BAD_REQUEST', `The body is larger than ${Math.round(maxBytes / 1024)} KB.`);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) throw new HttpError('BAD_REQUEST', 'The body is empty; send a JSON object.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HttpError('BAD_REQUEST', `The body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HttpError('BAD_REQUEST', 'The body must be a JSON object.');
  return value as Body;
}

/** Only these fields may be sent; an unknown one is named in the 400. */
export function only(body: Body, allowed: readonly string[]): void {
  const extra = Object.keys(body).filter((k) => !allowed.includes(k));
  if (extra.length)
    throw new HttpError('BAD_REQUEST', `Unknown field(s): ${extra.join(', ')}. Allowed: ${allowed.join(', ')}.`);
}

/** A message's text, as every route that takes one checks it (the same rules as a chat message). */
export function messageText(body: Body, field = 'text'): string {
  const v = body[field];
  if (typeof v !== 'string')
    throw new HttpError('BAD_REQUEST', `The field "${field}" is required and must be a string.`);
  switch (textProblem(v)) {
    case 'empty':
      throw new HttpError('BAD_REQUEST', `The field "${field}" is empty.`);
    case 'nul-character':
      throw new HttpError(
        'BAD_REQUEST',
        'The text contains a NUL character (\\u0000), which cannot be passed to the agent. Remove it and send ' +
          'the text again.',
      );
    case 'text-too-long':
      throw new HttpError(
        'BAD_REQUEST',
        `The text is over ${MAX_TEXT_BYTES / 1024} KB; send it as a file or in parts.`,
      );
    default:
      return v;
  }
}

/** An optional integer query parameter within [min, max]; anything else is a 400 naming it. */
export function numberParam(query: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const n = Number(raw);
  if (!/^\d{1,16}$/.test(raw) || n < min || n > max)
    throw new HttpError('BAD_REQUEST', `The query parameter "${name}" must be a whole number from ${min} to ${max}.`);
  return n;
}
