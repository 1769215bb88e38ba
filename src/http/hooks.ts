/**
 *   POST /hooks/<name>   a webhook delivery (docs/schedules.md): signed with the hook's secret, no bearer token
 *                        needed and none taken instead. 413 over 1 MB, 401 for a bad or missing signature, 404 for an
 *                        unknown hook, 200 for a replay (not run again), 202 once the message is stored.
 * Served by the page's server and by the hooks' own listener (hook-server.ts). The body is read raw, as it was
 * signed, and no further than 1 MB: a longer one is answered 413 at once and its connection closed.
 */
import type http from 'node:http';
import type { GatewayApi } from '../gateway/api/api.js';
import { MAX_BODY_BYTES } from '../hooks/delivery.js';
import type { Logger } from '../ops/logger.js';
import { HttpError, sendJson } from './errors.js';
import type { Target } from './route.js';

export const HOOKS_PREFIX = 'hooks';

/** The body as bytes, or undefined once it passed `max` (the rest is not read). */
async function readRaw(req: http.IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(res: http.ServerResponse): void {
  res.setHeader('connection', 'close');
  sendJson(res, 413, {
    error: { code: 'HOOK_TOO_LARGE', message: `The webhook body is over ${MAX_BODY_BYTES} bytes.` },
  });
}

/** One request under /hooks/. */
export async function serveHook(
  api: GatewayApi | undefined,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  target: Target,
  log: Logger,
): Promise<void> {
  const [, name, ...more] = target.segments;
  if (name === undefined || more.length) throw new HttpError('NOT_FOUND', 'Post a delivery to /hooks/<name>.');
  if ((req.method ?? 'GET') !== 'POST') {
    res.setHeader('allow', 'POST');
    throw new HttpError('METHOD_NOT_ALLOWED', 'Use POST.');
  }
  if (!api) throw new HttpError('GATEWAY_STARTING', 'The gateway is starting; try again in a moment.');
  const body = await readRaw(req, MAX_BODY_BYTES);
  if (!body) {
    log.info({ hook: name.slice(0, 64) }, 'hook refused: body over 1 MB');
    return tooLarge(res);
  }
  const answer = await api.deliverHook(name, req.headers, body);
  sendJson(res, answer.status, answer.body);
}
