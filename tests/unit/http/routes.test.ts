/** The HTTP route table (src/http/routes.ts) and its error codes: every code has one status, always. */
import { describe, expect, it } from 'vitest';
import { HTTP_STATUS, HttpError } from '../../../src/http/errors.js';
import { parseTarget } from '../../../src/http/request.js';
import { carriesOwnCredential, findRoute, ROUTES, takesTokenInQuery } from '../../../src/http/routes.js';

const find = (method: string, raw: string) => findRoute(method, parseTarget(raw));
const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, code: err.code, message: err.message };
  }
  return undefined;
};

describe('HTTP routes', () => {
  it('finds each route with its parameters, decoded once', () => {
    const r = find('DELETE', '/api/conversations/c-1/messages/m%2F1');
    expect([r.route.method, r.route.path]).toEqual(['DELETE', '/api/conversations/:id/messages/:messageId']);
    expect(r.params).toEqual({ id: 'c-1', messageId: 'm/1' });
  });

  it('answers 405 naming the methods a path has, 404 for a path it does not, 400 for a bad conversation id', () => {
    expect(failure(() => find('PUT', '/api/conversations'))).toEqual({
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      message: 'Use GET or POST.',
    });
    expect(failure(() => find('GET', '/api/nothing'))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(failure(() => find('GET', '/api/conversations/bad%20id/events'))).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
    });
  });

  it('takes the token in the query on the event stream only', () => {
    expect(takesTokenInQuery('GET', parseTarget('/api/conversations/c/events'))).toBe(true);
    expect(takesTokenInQuery('GET', parseTarget('/api/conversations/c/messages'))).toBe(false);
    expect(takesTokenInQuery('POST', parseTarget('/api/conversations/c/events'))).toBe(false);
    expect(ROUTES.filter((r) => r.tokenInQuery).map((r) => r.path)).toEqual(['/api/conversations/:id/events']);
  });

  it("asks no bearer token only of a notification's button, whose body carries a token the gateway signed", () => {
    expect(ROUTES.filter((r) => r.credential).map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/push/action']);
    expect(carriesOwnCredential('POST', parseTarget('/api/push/action'))).toBe(true);
    expect(carriesOwnCredential('GET', parseTarget('/api/push/action'))).toBe(false);
    expect(carriesOwnCredential('POST', parseTarget('/api/push/subscriptions'))).toBe(false);
  });

  it('gives every error code the status it stands for', () => {
    expect(HTTP_STATUS).toMatchObject({
      BAD_REQUEST: 400,
      UNAUTHORIZED: 401,
      ORIGIN_NOT_ALLOWED: 403,
      NOT_FOUND: 404,
      METHOD_NOT_ALLOWED: 405,
      MESSAGE_NOT_WAITING: 409,
      PUSH_DISABLED: 409,
      UNSUPPORTED_MEDIA_TYPE: 415,
      HOST_NOT_ALLOWED: 421,
      INTERNAL_ERROR: 500,
      GATEWAY_STARTING: 503,
    });
    for (const code of Object.keys(HTTP_STATUS) as Array<keyof typeof HTTP_STATUS>)
      expect(new HttpError(code, 'x').status).toBe(HTTP_STATUS[code]);
  });

  it('has no two routes for the same method and path', () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
