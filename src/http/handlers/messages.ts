/**
 *   POST   /api/conversations/:id/messages              {text, clientMessageId?} -> 202 SendResult
 *   GET    /api/conversations/:id/messages?before=&limit=  a page of history (HistoryPage)
 *   GET    /api/conversations/:id/turns?before=&limit=     turns with their steps, oldest first (TurnsPage)
 *   DELETE /api/conversations/:id/messages/:messageId   withdraw a waiting message (409 once it runs)
 *   PATCH  /api/conversations/:id/messages/:messageId   {text}: edit a waiting message (409 once it runs)
 *   POST   /api/conversations/:id/stop                  stop the running turn and the queue (no /stop message)
 */
import type { WaitingChange } from '../../gateway/commands/waiting.js';
import { MAX_TEXT_BODY, messageText, numberParam, only, readJsonObject } from '../body.js';
import { HttpError } from '../errors.js';
import { ok, type Route, type RouteContext } from '../route.js';
import type { HistoryPage, SendResult, StopBody, TurnsPage, WaitingMessageBody } from '../wire.js';

async function send({ api, req, params }: RouteContext) {
  const body = await readJsonObject(req, MAX_TEXT_BODY);
  only(body, ['text', 'clientMessageId']);
  const text = messageText(body);
  const cm = body.clientMessageId;
  if (cm !== undefined && (typeof cm !== 'string' || cm.length === 0 || cm.length > 200))
    throw new HttpError('BAD_REQUEST', 'clientMessageId must be a string of 1-200 characters.');
  return ok((await api.send(params.id!, text, cm)) satisfies SendResult, 202);
}

function answer(change: WaitingChange) {
  if (!change.ok) throw new HttpError(change.status === 404 ? 'NOT_FOUND' : 'MESSAGE_NOT_WAITING', change.reason);
  return ok({ messageId: change.row.id, state: change.row.state, text: change.row.text } satisfies WaitingMessageBody);
}

async function edit({ api, req, params }: RouteContext) {
  const body = await readJsonObject(req, MAX_TEXT_BODY);
  only(body, ['text']);
  const text = messageText(body);
  if (text.trim().startsWith('/'))
    throw new HttpError(
      'BAD_REQUEST',
      'A waiting message cannot be edited into a command; send the command as a new message.',
    );
  return answer(api.edit(params.id!, params.messageId!, text));
}

export const messageRoutes: Route[] = [
  { method: 'POST', path: '/api/conversations/:id/messages', handler: send },
  {
    method: 'GET',
    path: '/api/conversations/:id/messages',
    handler: ({ api, params, query }) => {
      const before = numberParam(query, 'before', 0, Number.MAX_SAFE_INTEGER);
      const limit = numberParam(query, 'limit', 1, 500) ?? 100;
      return ok(api.history(params.id!, before, limit) satisfies HistoryPage);
    },
  },
  {
    method: 'GET',
    path: '/api/conversations/:id/turns',
    handler: ({ api, params, query }) => {
      const before = numberParam(query, 'before', 0, Number.MAX_SAFE_INTEGER);
      const limit = numberParam(query, 'limit', 1, 200);
      return ok(api.turns(params.id!, { before, limit }) satisfies TurnsPage);
    },
  },
  {
    method: 'DELETE',
    path: '/api/conversations/:id/messages/:messageId',
    handler: ({ api, params }) => answer(api.withdraw(params.id!, params.messageId!)),
  },
  { method: 'PATCH', path: '/api/conversations/:id/messages/:messageId', handler: edit },
  {
    method: 'POST',
    path: '/api/conversations/:id/stop',
    handler: async ({ api, params }) => {
      if (!api.conversation(params.id!)) throw new HttpError('NOT_FOUND', `No conversation "${params.id}".`);
      return ok((await api.stop(params.id!)) satisfies StopBody);
    },
  },
];
