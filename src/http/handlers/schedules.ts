/**
 *   GET    /api/schedules                   every schedule, its next runs, last run and newest problem (ScheduleList)
 *   PUT    /api/schedules/:name             {cron, prompt, timezone?, project?, deliver?, session?, quiet?,
 *                                           timeoutMinutes?, catchUpMinutes?, enabled?}: makes or changes a schedule
 *                                           kept in Rudder's store (ScheduleChange; the config's own: 409)
 *   DELETE /api/schedules/:name             removes a kept one
 *   GET    /api/schedules/:name/runs        ?before=<slot>&limit=<n>: its runs, newest first (RunsPage)
 *   POST   /api/schedules/:name/run         one run now (ScheduleChange with the conversation it runs in)
 *   POST   /api/schedules/:name/pause       and /resume
 * A refusal answers with its code: SCHEDULE_UNKNOWN 404, SCHEDULE_INVALID 400, SCHEDULE_REFUSED 409.
 */
import { type Body, numberParam, only, readJsonObject } from '../body.js';
import { HttpError } from '../errors.js';
import { ok, type Route } from '../route.js';
import type { RunsPage, ScheduleBody, ScheduleChange, ScheduleList } from '../wire.js';

const FIELDS: Record<keyof ScheduleBody, 'string' | 'number' | 'boolean'> = {
  cron: 'string',
  prompt: 'string',
  timezone: 'string',
  project: 'string',
  deliver: 'string',
  session: 'string',
  quiet: 'boolean',
  timeoutMinutes: 'number',
  catchUpMinutes: 'number',
  enabled: 'boolean',
};

/** The fields of a schedule, each of its type; what they hold is the schedule schema's to check. */
function scheduleBody(body: Body): ScheduleBody {
  only(body, Object.keys(FIELDS));
  for (const [field, type] of Object.entries(FIELDS))
    if (body[field] !== undefined && typeof body[field] !== type)
      throw new HttpError('BAD_REQUEST', `The field "${field}" must be a ${type}.`);
  if (typeof body.cron !== 'string' || typeof body.prompt !== 'string')
    throw new HttpError(
      'BAD_REQUEST',
      'The fields "cron" (when: a cron line or e.g. "weekdays at 07:00") and "prompt" are required.',
    );
  return body as unknown as ScheduleBody;
}

/** A change answers 200, a refusal with its code's status. */
function answer(change: ScheduleChange) {
  if (!change.ok) throw new HttpError(change.code, change.text);
  return ok(change satisfies ScheduleChange);
}

export const scheduleRoutes: Route[] = [
  { method: 'GET', path: '/api/schedules', handler: ({ api }) => ok(api.schedules() satisfies ScheduleList) },
  {
    method: 'PUT',
    path: '/api/schedules/:name',
    handler: async ({ api, req, params }) =>
      answer(api.putSchedule(params.name!, scheduleBody(await readJsonObject(req, 64 * 1024)))),
  },
  {
    method: 'DELETE',
    path: '/api/schedules/:name',
    handler: ({ api, params }) => answer(api.removeSchedule(params.name!)),
  },
  {
    method: 'GET',
    path: '/api/schedules/:name/runs',
    handler: ({ api, params, query }) => {
      const page = api.scheduleRuns(
        params.name!,
        numberParam(query, 'before', 0, Number.MAX_SAFE_INTEGER),
        numberParam(query, 'limit', 1, 200) ?? 50,
      );
      if (!page) throw new HttpError('SCHEDULE_UNKNOWN', `There is no schedule ${params.name}.`);
      return ok(page satisfies RunsPage);
    },
  },
  {
    method: 'POST',
    path: '/api/schedules/:name/run',
    handler: async ({ api, params }) => answer(await api.runSchedule(params.name!)),
  },
  {
    method: 'POST',
    path: '/api/schedules/:name/pause',
    handler: ({ api, params }) => answer(api.pauseSchedule(params.name!, true)),
  },
  {
    method: 'POST',
    path: '/api/schedules/:name/resume',
    handler: ({ api, params }) => answer(api.pauseSchedule(params.name!, false)),
  },
];
