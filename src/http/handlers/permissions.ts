/**
 *   POST /api/conversations/:id/permissions/:requestId   {optionId} -> {ok: true}
 *   GET  /api/permissions                                requests waiting in the chats' conversations (WaitingList)
 *   POST /api/permissions/:requestId                     {optionId}: answers one of those -> {ok: true}
 * `{allow: true|false}` alone still answers `allow` / `deny` (deprecated, in this release only: docs/http-api.md).
 */
import type { AnswerResult } from '../../gateway/permissions/desk.js';
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

/** The body of an answer the desk took; else its rules' refusal (400, with its code), or a 404: nothing waits there. */
function answered(r: AnswerResult, notWaiting: string): OkBody {
  if (r.ok) return { ok: true };
  if (r.reason === 'refused') throw new HttpError(r.code, r.text);
  throw new HttpError('NOT_FOUND', notWaiting);
}

async function answerRequest({ api, req, params }: RouteContext) {
  const optionId = await optionOf(req);
  const r = api.answerPermission(params.id!, params.requestId!, optionId);
  return ok(answered(r, 'No permission request with that id is waiting in this conversation.'));
}

async function answerInChat({ api, req, params }: RouteContext) {
  const optionId = await optionOf(req);
  const r = api.answerInChat(params.requestId!, optionId);
  return ok(answered(r, 'No permission request with that id is waiting in a chat (GET /api/permissions).'));
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
