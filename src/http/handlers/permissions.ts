/**
 *   POST /api/conversations/:id/permissions/:requestId   {optionId} -> {ok: true}
 *   GET  /api/permissions                                requests waiting in the chats' conversations (WaitingList)
 *   POST /api/permissions/:requestId                     {optionId}: answers one of those -> {ok: true}
 * `{allow: true|false}` alone still answers `allow` / `deny` (deprecated; the README says until when).
 */
import { type Body, only, readJsonObject } from '../body.js';
import { HttpError } from '../errors.js';
import { ok, type Route, type RouteContext } from '../route.js';
import type { OkBody, WaitingList } from '../wire.js';

/** The option a body names: `optionId`, or the deprecated `allow`. */
async function optionOf(req: RouteContext['req']): Promise<string> {
  const body: Body = await readJsonObject(req, 4096);
  only(body, ['optionId', 'allow']);
  if (body.optionId !== undefined && (typeof body.optionId !== 'string' || !body.optionId))
    throw new HttpError('BAD_REQUEST', 'The field "optionId" must be one of the request\'s option ids.');
  if (body.allow !== undefined && typeof body.allow !== 'boolean')
    throw new HttpError('BAD_REQUEST', 'The field "allow" must be true or false.');
  const optionId =
    (body.optionId as string | undefined) ?? (body.allow === undefined ? undefined : body.allow ? 'allow' : 'deny');
  if (!optionId)
    throw new HttpError('BAD_REQUEST', 'The field "optionId" is required: one of the request\'s option ids.');
  return optionId;
}

async function answerRequest({ api, req, params }: RouteContext) {
  const optionId = await optionOf(req);
  if (!api.answerPermission(params.id!, params.requestId!, optionId).ok)
    throw new HttpError('NOT_FOUND', 'No permission request with that id is waiting in this conversation.');
  return ok({ ok: true } satisfies OkBody);
}

async function answerInChat({ api, req, params }: RouteContext) {
  const optionId = await optionOf(req);
  const r = api.answerInChat(params.requestId!, optionId);
  if (r.ok) return ok({ ok: true } satisfies OkBody);
  if (r.reason === 'no-such-option')
    throw new HttpError('BAD_REQUEST', `"${optionId}" is not one of this request's option ids.`);
  if (r.reason === 'not-shown-whole')
    throw new HttpError(
      'BAD_REQUEST',
      "Part of this request's input was too long to show, so it cannot be approved here; deny it, or answer in " +
        "the agent's terminal.",
    );
  throw new HttpError('NOT_FOUND', 'No permission request with that id is waiting in a chat (GET /api/permissions).');
}

export const permissionRoutes: Route[] = [
  { method: 'POST', path: '/api/conversations/:id/permissions/:requestId', handler: answerRequest },
  {
    method: 'GET',
    path: '/api/permissions',
    handler: ({ api }) => ok({ requests: api.waitingInChats() } satisfies WaitingList),
  },
  { method: 'POST', path: '/api/permissions/:requestId', handler: answerInChat },
];
