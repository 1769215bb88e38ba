/**
 * The page's "Running now" on a new conversation (gateway/api/running.ts):
 *   GET  /api/projects/:name/running          what runs in the project's directory now, here or on its node
 *   POST /api/projects/:name/running/attach   {socket, paneId, pid} -> 201 {id, project}: a new conversation
 *                                             that drives that pane, as /attach does
 * Refusals: PROJECT_UNKNOWN 404; PANE_GONE 409 (that claude no longer runs in that pane); PANE_HELD 409
 * (another conversation drives it); AGENT_UNREACHABLE (a node's project, its node not answering).
 */
import { only, readJsonObject } from '../body.js';
import { HttpError } from '../errors.js';
import { ok, type Route, type RouteContext } from '../route.js';
import type { AttachRunningRequest, CreatedConversation, RunningList } from '../wire.js';

const bad = (message: string) => new HttpError('BAD_REQUEST', message);

/** The pane as the list showed it: its server, its tmux id and its claude's pid. */
async function paneRef(req: RouteContext['req']): Promise<AttachRunningRequest> {
  const body = await readJsonObject(req, 1024);
  only(body, ['socket', 'paneId', 'pid']);
  const { socket, paneId, pid } = body;
  if (typeof socket !== 'string' || !socket || socket.length > 1024)
    throw bad('"socket" must be the tmux server\'s name, as GET /api/projects/:name/running lists it.');
  if (typeof paneId !== 'string' || !/^%\d{1,9}$/.test(paneId)) throw bad('"paneId" must be a tmux pane id (%3).');
  if (!Number.isSafeInteger(pid) || (pid as number) < 1) throw bad('"pid" must be the claude process id listed.');
  return { socket, paneId, pid: pid as number };
}

export const runningRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/projects/:name/running',
    handler: async ({ api, params }) => ok((await api.running(params.name!)) satisfies RunningList),
  },
  {
    method: 'POST',
    path: '/api/projects/:name/running/attach',
    handler: async ({ api, params, req }) =>
      ok((await api.attachRunning(params.name!, await paneRef(req))) satisfies CreatedConversation, 201),
  },
];
