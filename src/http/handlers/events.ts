/**
 *   GET /api/conversations/:id/events   server-sent events (WireEvent), from Last-Event-ID (or ?lastEventId=)
 * The one route that takes the token as ?token= too: EventSource cannot send headers.
 */

import type { Route } from '../route.js';
import { streamEvents } from '../sse.js';

export const eventRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/conversations/:id/events',
    tokenInQuery: true,
    handler: ({ api, req, res, params, query, log, streams }) => {
      const last = req.headers['last-event-id'] ?? query.get('lastEventId') ?? undefined;
      const since = last !== undefined && /^\d{1,15}$/.test(String(last)) ? Number(last) : undefined;
      streamEvents(api.events(params.id!), log, streams, req, res, since);
      return undefined;
    },
  },
];
