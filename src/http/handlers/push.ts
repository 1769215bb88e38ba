/**
 *   GET    /api/push                                  whether notifications are on, and the VAPID key (PushInfo)
 *   POST   /api/push/subscriptions                    a browser's PushSubscription -> 201 {id}
 *   DELETE /api/push/subscriptions/:subscriptionId    that device gets no more notifications
 *   POST   /api/push/presence                         {viewer, conversationId|null}: what this page shows
 *   POST   /api/push/test                             a test notification to every device -> {devices}
 *   POST   /api/push/action                           {token}: a notification's button (no bearer token:
 *                                                      the service worker has none; the token is signed)
 * Mute is a conversation's: PATCH /api/conversations/:id {muted}.
 */
import { endpointProblem } from '../../channels/push/endpoint.js';
import { only, readJsonObject } from '../body.js';
import { HttpError } from '../errors.js';
import { ok, type Route, type RouteContext } from '../route.js';
import type { OkBody, PushActionResult, PushInfo, PushSubscribed, PushTestResult } from '../wire.js';

const CONVERSATION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const VIEWER = /^[A-Za-z0-9_-]{8,64}$/;
const MAX_ENDPOINT = 2048;

/** A base64url string that decodes to `bytes` bytes (and, for a public key, an uncompressed point). */
function key(v: unknown, name: string, bytes: number): string {
  const raw = typeof v === 'string' && /^[A-Za-z0-9_-]+={0,2}$/.test(v) ? Buffer.from(v, 'base64url') : undefined;
  if (!raw || raw.length !== bytes || (bytes === 65 && raw[0] !== 4))
    throw new HttpError(
      'BAD_REQUEST',
      `The field "keys.${name}" must be the subscription's ${name} key: ${bytes} bytes, base64url (as ` +
        'PushSubscription.toJSON() gives it).',
    );
  return raw.toString('base64url');
}

function endpointOf(v: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof v === 'string' && v.length <= MAX_ENDPOINT ? new URL(v) : undefined;
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:')
    throw new HttpError(
      'BAD_REQUEST',
      'The field "endpoint" must be the https: URL of the browser\'s push service (PushSubscription.endpoint).',
    );
  // Never this machine, its network or a metadata service: the gateway would connect there.
  const problem = endpointProblem(url.href);
  if (problem) throw new HttpError('BAD_REQUEST', `The field "endpoint" is refused: ${problem}.`);
  return url.href;
}

async function subscribe({ api, req }: RouteContext) {
  const body = await readJsonObject(req, 8192);
  only(body, ['endpoint', 'keys', 'expirationTime']);
  const endpoint = endpointOf(body.endpoint);
  const keys = body.keys as Record<string, unknown> | undefined;
  if (typeof keys !== 'object' || keys === null)
    throw new HttpError('BAD_REQUEST', 'The field "keys" is required: {p256dh, auth}, from PushSubscription.toJSON().');
  const r = api.push.subscribe(endpoint, key(keys.p256dh, 'p256dh', 65), key(keys.auth, 'auth', 16));
  if (!r.ok && r.why === 'disabled')
    throw new HttpError('PUSH_DISABLED', 'Notifications are off on this gateway: set push.enabled to true.');
  if (!r.ok)
    throw new HttpError(
      'BAD_REQUEST',
      'Too many devices have notifications on; turn them off on one you no longer use, then try again.',
    );
  return ok({ id: r.id } satisfies PushSubscribed, 201);
}

function unsubscribe({ api, params }: RouteContext) {
  if (!api.push.unsubscribe(params.subscriptionId!))
    throw new HttpError('NOT_FOUND', 'No such subscription: this device gets no notifications already.');
  return ok({ ok: true } satisfies OkBody);
}

async function presence({ api, req }: RouteContext) {
  const body = await readJsonObject(req, 1024);
  only(body, ['viewer', 'conversationId']);
  if (typeof body.viewer !== 'string' || !VIEWER.test(body.viewer))
    throw new HttpError('BAD_REQUEST', 'The field "viewer" must be the page\'s own id: 8-64 letters, digits, _ or -.');
  const c = body.conversationId;
  if (c !== null && (typeof c !== 'string' || !CONVERSATION_ID.test(c)))
    throw new HttpError('BAD_REQUEST', 'The field "conversationId" must be a conversation id, or null.');
  api.push.presence(body.viewer, c);
  return ok({ ok: true } satisfies OkBody);
}

async function action({ api, req }: RouteContext) {
  const body = await readJsonObject(req, 4096);
  only(body, ['token']);
  if (typeof body.token !== 'string' || !body.token)
    throw new HttpError('BAD_REQUEST', 'The field "token" is required: the token of the notification\'s button.');
  const r = api.push.act(body.token);
  if (!r.ok)
    throw new HttpError(r.why === 'refused' ? r.code : r.why === 'invalid' ? 'UNAUTHORIZED' : 'NOT_FOUND', r.text);
  return ok({ ok: true, text: r.text } satisfies PushActionResult);
}

export const pushRoutes: Route[] = [
  { method: 'GET', path: '/api/push', handler: ({ api }) => ok(api.push.info() satisfies PushInfo) },
  { method: 'POST', path: '/api/push/subscriptions', handler: subscribe },
  { method: 'DELETE', path: '/api/push/subscriptions/:subscriptionId', handler: unsubscribe },
  { method: 'POST', path: '/api/push/presence', handler: presence },
  {
    method: 'POST',
    path: '/api/push/test',
    handler: ({ api }) => ok({ devices: api.push.test() } satisfies PushTestResult),
  },
  { method: 'POST', path: '/api/push/action', handler: action, credential: 'action-token' },
];
