/**
 *   POST /api/conversations/:id/permissions/:requestId   {optionId} -> {ok: true}
 * `{allow: true|false}` alone still answers `allow` / `deny` (deprecated; the README says until when).
 */
import { only, readJsonObject } from '../body.js';
import { HttpError } from '../errors.js';
import { ok, type Route, type RouteContext } from '../route.js';
import type { OkBody } from '../wire.js';

async function answerRequest({ api, req, params }: RouteContext) {
  const body = await readJsonObject(req, 4096);
  only(body, ['optionId', 'allow']);
  if (body.optionId !== undefined && (typeof body.optionId !== 'string' || !body.optionId))
    throw new HttpError('BAD_REQUEST', 'The field "optionId" must be one of the request\'s option ids.');
  if (body.allow !== undefined && typeof body.allow !== 'boolean')
    throw new HttpError('BAD_REQUEST', 'The field "allow" must be true or false.');
  const optionId =
    (body.optionId as string | undefined) ?? (body.allow === undefined ? undefined : body.allow ? 'allow' : 'deny');
  if (!optionId)
    throw new HttpError('BAD_REQUEST', 'The field "optionId" is required: one of the request\'s option ids.');
  if (!api.answerPermission(params.id!, params.requestId!, optionId).ok)
    throw new HttpError('NOT_FOUND', 'No permission request with that id is waiting in this conversation.');
  return ok({ ok: true } satisfies OkBody);
}

export const permissionRoutes: Route[] = [
  { method: 'POST', path: '/api/conversations/:id/permissions/:requestId', handler: answerRequest },
];
