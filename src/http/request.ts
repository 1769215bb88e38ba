/**
 * One web request, in the order its checks run: security headers on every answer, the request
 * target (a malformed one is a 400), the Host (421 for a name this gateway does not serve), then
 * the public routes (/healthz, a webhook's POST /hooks/<name> with its own signature, the web app's
 * files), then for /api: the Origin when present (403), the token (401; a notification's button
 * carries a signed token of its own instead), and a JSON content type on a body (POST, PATCH, PUT:
 * 415; audio/* for a recording), before the API itself.
 */
import type http from 'node:http';
import type { GatewayApi } from '../gateway/api/api.js';
import type { Logger } from '../ops/logger.js';
import { redactUrl } from '../ops/redact.js';
import { asHttpError, HttpError, sendError, sendJson } from './errors.js';
import { setSecurityHeaders } from './headers.js';
import { HOOKS_PREFIX, serveHook } from './hooks.js';
import type { HostRules } from './hosts.js';
import type { Target } from './route.js';
import { carriesOwnCredential, findRoute, takesAudio, takesTokenInQuery } from './routes.js';
import type { StaticFiles } from './static.js';
import { tokenMatches } from './token.js';

export type { Target };

export interface WebRequestContext {
  token: string;
  hosts: HostRules;
  /** The web app's build: every path outside /api. */
  files: StaticFiles;
  /** Undefined until the gateway's services run (a request meanwhile is a 503). */
  api: GatewayApi | undefined;
  logger: Logger;
  /** The event streams open now. */
  streams: Set<http.ServerResponse>;
}

/** Only origin-form targets ("/path?query"); every malformed one is a 400 that says why. */
export function parseTarget(raw: string | undefined): Target {
  if (!raw?.startsWith('/')) throw new HttpError('BAD_REQUEST', 'The request target must be a path starting with "/".');
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const segments = path
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        throw new HttpError(
          'BAD_REQUEST',
          `The path is not valid URL encoding (at "${s.slice(0, 40)}"); encode "%" as %25.`,
        );
      }
    });
  return { path, segments, query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}

function bearer(req: http.IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
}

function requireJson(req: http.IncomingMessage): void {
  const type = req.headers['content-type'];
  const [media, ...params] = (type ?? '').split(';').map((p) => p.trim().toLowerCase());
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice(8)
    .replace(/"/g, '');
  if (media !== 'application/json' || (charset !== undefined && charset !== 'utf-8')) {
    throw new HttpError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Send the body with content-type: application/json ` +
        `(got ${type === undefined ? 'none' : JSON.stringify(type.slice(0, 80))}).`,
    );
  }
}

/** A recording: audio of any kind a browser records (audio/webm;codecs=opus, audio/ogg, audio/mp4…). */
function requireAudio(req: http.IncomingMessage): void {
  const type = req.headers['content-type'] ?? '';
  if (!/^audio\/[a-z0-9.+-]+\s*(;|$)/i.test(type))
    throw new HttpError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Send the recording with an audio content type such as audio/webm (got ${
        type ? JSON.stringify(type.slice(0, 80)) : 'none'
      }).`,
    );
}

export async function handleRequest(
  ctx: WebRequestContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const method = req.method ?? 'GET';
  setSecurityHeaders(res);
  // A line per request at debug level only (the URL redacted when it is written).
  if (ctx.logger.isLevelEnabled('debug'))
    res.once('close', () =>
      ctx.logger.debug({ method, url: redactUrl(req.url ?? ''), status: res.statusCode }, 'web request'),
    );
  try {
    const target = parseTarget(req.url);
    requireAllowedHost(ctx, req);
    if (target.path === '/healthz') return sendJson(res, 200, { ok: true });
    // A webhook carries its own signature: no token is asked, none is taken instead (hooks.ts).
    if (target.segments[0] === HOOKS_PREFIX) return await serveHook(ctx.api, req, res, target, ctx.logger);
    // Everything outside /api is the web app's build (index.html at /, /assets/…, /sw.js, the manifest).
    if (target.segments[0] !== 'api') return ctx.files.serve(req, res, target.path);
    requireApiCredentials(ctx, req, method, target);
    if (!ctx.api) throw new HttpError('GATEWAY_STARTING', 'The gateway is starting; try again in a moment.');
    const { route, params } = findRoute(method, target);
    const answer = await route.handler({
      api: ctx.api,
      req,
      res,
      params,
      query: target.query,
      log: ctx.logger,
      streams: ctx.streams,
    });
    if (answer) sendJson(res, answer.status, answer.body);
  } catch (err) {
    failed(ctx, req, res, err);
  }
}

function requireAllowedHost(ctx: WebRequestContext, req: http.IncomingMessage): void {
  if (ctx.hosts.allowsHost(req.headers.host)) return;
  throw new HttpError(
    'HOST_NOT_ALLOWED',
    'This gateway does not answer to that Host name. Open it by its bound address, or list the name in ' +
      'web.allowedHosts.',
  );
}

/** An API request: its Origin when present, the token (or the route's own credential), the body's type. */
function requireApiCredentials(ctx: WebRequestContext, req: http.IncomingMessage, method: string, target: Target) {
  const origin = req.headers.origin;
  if (origin !== undefined && !ctx.hosts.allowsOrigin(origin)) {
    throw new HttpError(
      'ORIGIN_NOT_ALLOWED',
      'Requests from another origin are refused; use the page this gateway serves, or list its name in ' +
        'web.allowedHosts.',
    );
  }
  const given =
    bearer(req) ?? (takesTokenInQuery(method, target) ? (target.query.get('token') ?? undefined) : undefined);
  if (!carriesOwnCredential(method, target) && !tokenMatches(given, ctx.token))
    throw new HttpError(
      'UNAUTHORIZED',
      'A valid bearer token is required: Authorization: Bearer <token> (it is in web-token in the data dir).',
    );
  if (takesAudio(method, target)) requireAudio(req);
  else if (method === 'POST' || method === 'PATCH' || method === 'PUT') requireJson(req);
}

/** A known error answers with its code; anything else is logged and answers 500 (or ends a started answer). */
function failed(ctx: WebRequestContext, req: http.IncomingMessage, res: http.ServerResponse, err: unknown): void {
  const known = asHttpError(err);
  if (known) return sendError(res, known);
  ctx.logger.error({ err, method: req.method ?? 'GET', url: redactUrl(req.url ?? '') }, 'web: request failed');
  if (!res.headersSent) sendError(res, new HttpError('INTERNAL_ERROR', 'Internal error; see the gateway log.'));
  else res.end();
}
