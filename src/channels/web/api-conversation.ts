/**
 * The web app's routes on one conversation, beside sending and the event stream (api.ts):
 *   GET    /api/conversations/:id                        the list item (title, activity, unread)
 *   PATCH  /api/conversations/:id                        {title?, archived?}
 *   POST   /api/conversations/:id/read                   {eventId}: seen up to this event
 *   POST   /api/conversations/:id/stop                   stop the running turn and the queue (no /stop message)
 *   DELETE /api/conversations/:id/messages/:messageId    withdraw a waiting message (409 once it runs)
 *   PATCH  /api/conversations/:id/messages/:messageId    {text}: edit a waiting message (409 once it runs)
 * `segments` are the decoded path segments after the conversation id.
 */
import type http from 'node:http';
import { editMessage, stopConversation, type WaitingChange, withdrawMessage } from '../../gateway/actions.js';
import type { GatewayCore } from '../../gateway/core.js';
import { MAX_TEXT_BYTES } from '../../gateway/intake.js';
import { conversationItem, MAX_TITLE } from './conversations.js';
import { HttpError, readJsonObject, sendJson } from './http.js';

export interface ConversationTarget {
  key: string;
  conversationId: string;
  segments: string[];
  method: string;
}

function only(body: Record<string, unknown>, allowed: string[]): void {
  const extra = Object.keys(body).filter((k) => !allowed.includes(k));
  if (extra.length)
    throw new HttpError(400, 'BAD_REQUEST', `Unknown field(s): ${extra.join(', ')}. Allowed: ${allowed.join(', ')}.`);
}

function json(res: http.ServerResponse, body: unknown): true {
  sendJson(res, 200, body);
  return true;
}

function answer(res: http.ServerResponse, change: WaitingChange): true {
  if (!change.ok)
    throw new HttpError(change.status, change.status === 404 ? 'NOT_FOUND' : 'MESSAGE_NOT_WAITING', change.reason);
  return json(res, { messageId: change.row.id, state: change.row.state, text: change.row.text });
}

/** Handles the route when it is one of these; false otherwise (api.ts goes on). */
export async function conversationRoute(
  core: GatewayCore,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  t: ConversationTarget,
): Promise<boolean> {
  const [sub, messageId, ...rest] = t.segments;
  if (rest.length) return false;
  const conv = () => {
    const row = core.store.conversation(t.conversationId);
    if (!row) throw new HttpError(404, 'NOT_FOUND', `No conversation "${t.key}".`);
    return row;
  };

  if (sub === undefined && t.method === 'GET') return json(res, conversationItem(core, conv()));
  if (sub === undefined && t.method === 'PATCH') {
    conv();
    const body = await readJsonObject(req, 4096);
    only(body, ['title', 'archived']);
    if (body.title !== undefined) {
      if (typeof body.title !== 'string' || !body.title.trim())
        throw new HttpError(400, 'BAD_REQUEST', 'The field "title" must be a non-empty string.');
      if (body.title.length > MAX_TITLE)
        throw new HttpError(400, 'BAD_REQUEST', `The title is longer than ${MAX_TITLE} characters.`);
    }
    if (body.archived !== undefined && typeof body.archived !== 'boolean')
      throw new HttpError(400, 'BAD_REQUEST', 'The field "archived" must be true or false.');
    if (typeof body.title === 'string') core.store.setTitle(t.conversationId, body.title.trim());
    if (typeof body.archived === 'boolean') core.store.setArchived(t.conversationId, body.archived ? Date.now() : null);
    return json(res, conversationItem(core, conv()));
  }
  if (sub === 'read' && messageId === undefined && t.method === 'POST') {
    conv();
    const body = await readJsonObject(req, 1024);
    only(body, ['eventId']);
    if (typeof body.eventId !== 'number' || !Number.isSafeInteger(body.eventId) || body.eventId < 0)
      throw new HttpError(
        400,
        'BAD_REQUEST',
        'The field "eventId" must be a whole number (an event id from the stream or the list).',
      );
    core.store.markRead(t.conversationId, body.eventId);
    return json(res, conversationItem(core, conv()));
  }
  if (sub === 'stop' && messageId === undefined && t.method === 'POST') {
    conv();
    return json(res, await stopConversation(core, t.conversationId, 'web:owner'));
  }
  if (sub === 'messages' && messageId !== undefined && t.method === 'DELETE') {
    return answer(res, withdrawMessage(core, t.conversationId, messageId));
  }
  if (sub === 'messages' && messageId !== undefined && t.method === 'PATCH') {
    const body = await readJsonObject(req, MAX_TEXT_BYTES * 6 + 4096);
    only(body, ['text']);
    if (typeof body.text !== 'string' || !body.text.trim())
      throw new HttpError(400, 'BAD_REQUEST', 'The field "text" is required and must be a non-empty string.');
    if (Buffer.byteLength(body.text, 'utf8') > MAX_TEXT_BYTES)
      throw new HttpError(
        400,
        'BAD_REQUEST',
        `The text is over ${MAX_TEXT_BYTES / 1024} KB; send it as a file or in parts.`,
      );
    if (body.text.trim().startsWith('/'))
      throw new HttpError(
        400,
        'BAD_REQUEST',
        'A waiting message cannot be edited into a command; send the command as a new message.',
      );
    return answer(res, editMessage(core, t.conversationId, messageId, body.text));
  }
  return false;
}
