/**
 *   GET   /api/conversations[?archived=1]   the list, newest activity first (ConversationList)
 *   POST  /api/conversations                {title?, project?} -> 201 {id, project}
 *   GET   /api/conversations/:id            the list item (title, activity, unread)
 *   PATCH /api/conversations/:id            {title?, archived?, muted?}
 *   POST  /api/conversations/:id/read       {eventId}: seen up to this event
 */
import { MAX_TITLE } from '../../gateway/api/conversation-list.js';
import { type Body, only, readJsonObject } from '../body.js';
import { HttpError } from '../errors.js';
import { ok, type Route, type RouteContext } from '../route.js';
import type { ConversationItem, ConversationList, CreatedConversation } from '../wire.js';

function found(item: ConversationItem | undefined, key: string): ConversationItem {
  if (!item) throw new HttpError('NOT_FOUND', `No conversation "${key}".`);
  return item;
}

async function create({ api, req }: RouteContext) {
  const body: Body =
    req.headers['content-length'] === '0' ? {} : await readJsonObject(req, 4096).catch(() => ({}) as Body);
  only(body, ['title', 'project']);
  const title = typeof body.title === 'string' ? body.title.slice(0, 200) : null;
  if (body.project !== undefined && typeof body.project !== 'string')
    throw new HttpError('BAD_REQUEST', 'The field "project" must be a project name (GET /api/projects lists them).');
  const created = api.createConversation(title, body.project);
  if (!created)
    throw new HttpError(
      'BAD_REQUEST',
      `There is no project "${body.project}". Projects: ${api.projectNames().join(', ')}.`,
    );
  return ok(created satisfies CreatedConversation, 201);
}

async function patch({ api, req, params }: RouteContext) {
  found(api.conversation(params.id!), params.id!);
  const body = await readJsonObject(req, 4096);
  only(body, ['title', 'archived', 'muted']);
  if (body.title !== undefined) {
    if (typeof body.title !== 'string' || !body.title.trim())
      throw new HttpError('BAD_REQUEST', 'The field "title" must be a non-empty string.');
    if (body.title.length > MAX_TITLE)
      throw new HttpError('BAD_REQUEST', `The title is longer than ${MAX_TITLE} characters.`);
  }
  for (const flag of ['archived', 'muted'])
    if (body[flag] !== undefined && typeof body[flag] !== 'boolean')
      throw new HttpError('BAD_REQUEST', `The field "${flag}" must be true or false.`);
  const change = {
    ...(typeof body.title === 'string' ? { title: body.title.trim() } : {}),
    ...(typeof body.archived === 'boolean' ? { archived: body.archived } : {}),
    ...(typeof body.muted === 'boolean' ? { muted: body.muted } : {}),
  };
  return ok(found(api.updateConversation(params.id!, change), params.id!));
}

async function read({ api, req, params }: RouteContext) {
  found(api.conversation(params.id!), params.id!);
  const body = await readJsonObject(req, 1024);
  only(body, ['eventId']);
  const eventId = body.eventId;
  if (typeof eventId !== 'number' || !Number.isSafeInteger(eventId) || eventId < 0)
    throw new HttpError(
      'BAD_REQUEST',
      'The field "eventId" must be a whole number (an event id from the stream or the list).',
    );
  return ok(found(api.markRead(params.id!, eventId), params.id!));
}

export const conversationRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/conversations',
    handler: ({ api, query }) => {
      const archived = query.get('archived');
      return ok({
        conversations: api.conversations(archived === '1' || archived === 'true'),
      } satisfies ConversationList);
    },
  },
  { method: 'POST', path: '/api/conversations', handler: create },
  {
    method: 'GET',
    path: '/api/conversations/:id',
    handler: ({ api, params }) => ok(found(api.conversation(params.id!), params.id!)),
  },
  { method: 'PATCH', path: '/api/conversations/:id', handler: patch },
  { method: 'POST', path: '/api/conversations/:id/read', handler: read },
];
