/** What a route is: its method and path, the context its handler gets, and what it answers. */
import type http from 'node:http';
import type { GatewayApi } from '../gateway/api/api.js';
import type { Logger } from '../ops/logger.js';

/** The request target, split and decoded once: routes never decode again. */
export interface Target {
  /** The raw path, still encoded (for messages and logs). */
  path: string;
  /** Non-empty path segments, percent-decoded. */
  segments: string[];
  query: URLSearchParams;
}

export interface RouteContext {
  api: GatewayApi;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  log: Logger;
  /** The event streams open now. */
  streams: Set<http.ServerResponse>;
}

/** A JSON answer; a handler that streams (the event stream) answers the response itself and returns nothing. */
export type Answer = { status: number; body: unknown } | undefined;

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  handler(ctx: RouteContext): Promise<Answer> | Answer;
  /** EventSource cannot send headers: this route alone also takes the token as ?token=. */
  tokenInQuery?: boolean;
  /**
   * The body carries its own credential instead of the bearer token: a notification's signed action token,
   * which the service worker (no access to the page's token) sends. The handler checks it.
   */
  credential?: 'action-token';
  /** The body is audio (a recording), not JSON: its content type must be audio/*. */
  body?: 'audio';
}

export const ok = (body: unknown, status = 200): Answer => ({ status, body });
