/**
 * The HTTP API as a table: method, path (":name" segments are parameters) and handler. A path that
 * matches with another method is a 405 naming the methods it has; no match is a 404. The conversation
 * id in a path is checked once, here, for every route that has one.
 */
import { HttpError } from './errors.js';
import { conversationRoutes } from './handlers/conversations.js';
import { eventRoutes } from './handlers/events.js';
import { gatewayRoutes } from './handlers/gateway.js';
import { messageRoutes } from './handlers/messages.js';
import { permissionRoutes } from './handlers/permissions.js';
import { pushRoutes } from './handlers/push.js';
import { reviewRoutes } from './handlers/review.js';
import { runningRoutes } from './handlers/running.js';
import { scheduleRoutes } from './handlers/schedules.js';
import { speechRoutes } from './handlers/speech.js';
import { terminalRoutes } from './handlers/terminal.js';
import type { Route, Target } from './route.js';

export const ROUTES: Route[] = [
  ...gatewayRoutes,
  ...conversationRoutes,
  ...messageRoutes,
  ...permissionRoutes,
  ...reviewRoutes,
  ...runningRoutes,
  ...terminalRoutes,
  ...eventRoutes,
  ...pushRoutes,
  ...speechRoutes,
  ...scheduleRoutes,
];

const CONVERSATION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function matchPath(pattern: string, segments: string[]): Record<string, string> | undefined {
  const parts = pattern.split('/').filter(Boolean);
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, p] of parts.entries()) {
    if (p.startsWith(':')) params[p.slice(1)] = segments[i]!;
    else if (p !== segments[i]) return undefined;
  }
  return params;
}

/** The route for this request, with its parameters; a 404 or 405 when there is none. */
export function findRoute(method: string, t: Target): { route: Route; params: Record<string, string> } {
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const params = matchPath(route.path, t.segments);
    if (!params) continue;
    if (route.method !== method) {
      allowed.push(route.method);
      continue;
    }
    if (params.id !== undefined && !CONVERSATION_ID.test(params.id))
      throw new HttpError(
        'BAD_REQUEST',
        'A conversation id is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.',
      );
    return { route, params };
  }
  if (allowed.length) throw new HttpError('METHOD_NOT_ALLOWED', `Use ${[...new Set(allowed)].join(' or ')}.`);
  throw new HttpError('NOT_FOUND', `No route ${method} ${t.path}.`);
}

/** A route whose body carries its own signed credential (a notification's button): no bearer token is asked. */
export function carriesOwnCredential(method: string, t: Target): boolean {
  return ROUTES.some((r) => r.credential && r.method === method && matchPath(r.path, t.segments));
}

/** A route whose body is audio (a recording from the page), not JSON. */
export function takesAudio(method: string, t: Target): boolean {
  return ROUTES.some((r) => r.body === 'audio' && r.method === method && matchPath(r.path, t.segments));
}

/** The one route a browser reaches with EventSource, which cannot send headers: ?token= works here alone. */
export function takesTokenInQuery(method: string, t: Target): boolean {
  return ROUTES.some((r) => r.tokenInQuery && r.method === method && matchPath(r.path, t.segments));
}
