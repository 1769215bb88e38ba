/**
 * The HTTP API of the built-in web channel (documented in the README; end-to-end tests and
 * `rudder send` use it):
 *   POST /api/conversations/:id/messages          {text, clientMessageId?} -> 202 {messageId, disposition}
 *   GET  /api/conversations/:id/events             SSE: ack, text, reply, permission, error, status
 *   POST /api/conversations/:id/permissions/:rid   {allow: boolean}
 *   GET  /api/conversations[?archived=1] (each with its project), POST /api/conversations {title?, project?}
 *   GET  /api/conversations/:id/messages?before=&limit=  a page of history: messages, replies, turns with steps
 *   GET  /api/projects
 *   GET  /api/conversations/:id/turns?before=&limit=  turns with their steps, oldest first
 *   …and the routes of api-conversation.ts (rename, archive, read, stop, withdraw, edit)
 *   GET  /api/channels (states; a pending WhatsApp pairing QR as SVG), GET /api/status, GET /healthz
 * Every /api route needs the bearer token in the Authorization header; the event stream alone
 * also takes ?token= (EventSource cannot send headers). request.ts checks it before this runs.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { GatewayCore } from '../../gateway/core.js';
import { conversationIdOf, MAX_TEXT_BYTES } from '../../gateway/intake.js';
import { statusReport } from '../../ops/status.js';
import { hasQrPairing } from '../registry.js';
import { conversationRoute } from './api-conversation.js';
import { listConversations, titleFromFirstMessage } from './conversations.js';
import { historyPage } from './history.js';
import { HttpError, readJsonObject, sendJson } from './http.js';
import { qrSvg } from './qr-svg.js';
import type { Target } from './request.js';
import { streamEvents } from './sse.js';

export const WEB = 'web';
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** JSON escaping can grow text up to 6x; the text limit itself is checked after parsing. */
const MAX_BODY = MAX_TEXT_BYTES * 6 + 4096;

function conversationKey(id: string): string {
  if (!ID.test(id))
    throw new HttpError(
      400,
      'BAD_REQUEST',
      'A conversation id is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.',
    );
  return id;
}

/** An optional integer query parameter within [min, max]; anything else is a 400 naming it. */
function numberParam(query: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const n = Number(raw);
  if (!/^\d{1,16}$/.test(raw) || n < min || n > max)
    throw new HttpError(
      400,
      'BAD_REQUEST',
      `The query parameter "${name}" must be a whole number from ${min} to ${max}.`,
    );
  return n;
}

function only(body: Record<string, unknown>, allowed: string[]): void {
  const extra = Object.keys(body).filter((k) => !allowed.includes(k));
  if (extra.length)
    throw new HttpError(400, 'BAD_REQUEST', `Unknown field(s): ${extra.join(', ')}. Allowed: ${allowed.join(', ')}.`);
}

export async function handleApi(
  core: GatewayCore,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  target: Target,
): Promise<void> {
  const parts = target.segments; // ['api', ...], decoded
  const method = req.method ?? 'GET';

  if (parts[1] === 'status' && parts.length === 2) {
    if (method !== 'GET') throw new HttpError(405, 'BAD_REQUEST', 'Use GET.');
    return sendJson(res, 200, statusReport(core));
  }
  if (parts[1] === 'channels' && parts.length === 2 && method === 'GET') {
    // Channel states, and the pairing QR code of a channel waiting to be linked (WhatsApp).
    const channels = [...core.channels.values()].map((c) => {
      const qr = hasQrPairing(c) ? c.qr() : undefined;
      return { ...c.status(), ...(qr ? { qrSvg: qrSvg(qr) } : {}) };
    });
    return sendJson(res, 200, { channels });
  }
  if (parts[1] === 'projects' && parts.length === 2) {
    if (method !== 'GET') throw new HttpError(405, 'BAD_REQUEST', 'Use GET.');
    const set = core.projects.set();
    return sendJson(res, 200, {
      projects: set.projects.map((p) => ({ name: p.name, path: p.path, worktrees: !!p.worktrees })),
      defaultProject: set.defaultName,
    });
  }
  if (parts[1] !== 'conversations') throw new HttpError(404, 'NOT_FOUND', `No route ${method} ${target.path}.`);

  if (parts.length === 2) {
    if (method === 'GET') {
      const archived = target.query.get('archived');
      return sendJson(res, 200, {
        conversations: listConversations(core, WEB, archived === '1' || archived === 'true'),
      });
    }
    if (method === 'POST') {
      const body =
        req.headers['content-length'] === '0'
          ? {}
          : await readJsonObject(req, 4096).catch(() => ({}) as Record<string, unknown>);
      only(body, ['title', 'project']);
      const title = typeof body.title === 'string' ? body.title.slice(0, 200) : null;
      if (body.project !== undefined && typeof body.project !== 'string')
        throw new HttpError(
          400,
          'BAD_REQUEST',
          'The field "project" must be a project name (GET /api/projects lists them).',
        );
      const project = body.project === undefined ? core.projects.initial(WEB, '') : core.projects.find(body.project);
      if (!project)
        throw new HttpError(
          400,
          'BAD_REQUEST',
          `There is no project "${body.project}". Projects: ${core.projects
            .set()
            .projects.map((p) => p.name)
            .join(', ')}.`,
        );
      const key = `c-${randomUUID().slice(0, 8)}`;
      const id = conversationIdOf(WEB, key);
      core.store.ensureConversation(id, WEB, key, title ?? undefined);
      core.store.setProject(id, project.name, null);
      return sendJson(res, 201, { id: key, project: project.name });
    }
    throw new HttpError(405, 'BAD_REQUEST', 'Use GET or POST.');
  }

  const key = conversationKey(parts[2]!);
  const conversationId = conversationIdOf(WEB, key);
  const sub = parts[3];

  if (sub === 'messages' && parts.length === 4 && method === 'POST') {
    const body = await readJsonObject(req, MAX_BODY);
    only(body, ['text', 'clientMessageId']);
    if (typeof body.text !== 'string')
      throw new HttpError(400, 'BAD_REQUEST', 'The field "text" is required and must be a string.');
    if (!body.text.trim()) throw new HttpError(400, 'BAD_REQUEST', 'The field "text" is empty.');
    if (body.text.includes('\0'))
      throw new HttpError(
        400,
        'BAD_REQUEST',
        'The text contains a NUL character (\\u0000), which cannot be passed to the agent. Remove it and ' +
          'send the text again.',
      );
    if (Buffer.byteLength(body.text, 'utf8') > MAX_TEXT_BYTES)
      throw new HttpError(
        400,
        'BAD_REQUEST',
        `The text is over ${MAX_TEXT_BYTES / 1024} KB; send it as a file or in parts.`,
      );
    const cm = body.clientMessageId;
    if (cm !== undefined && (typeof cm !== 'string' || cm.length === 0 || cm.length > 200))
      throw new HttpError(400, 'BAD_REQUEST', 'clientMessageId must be a string of 1-200 characters.');
    const result = await core.accept({
      channel: WEB,
      platformMessageId: (cm as string | undefined) ?? `web-${randomUUID()}`,
      conversationKey: key,
      sender: { id: 'owner', name: 'web' },
      chatType: 'direct',
      text: body.text,
      sentAt: Date.now(),
    });
    if (!['refused', 'duplicate', 'command'].includes(result.disposition)) {
      titleFromFirstMessage(core, conversationId, body.text);
      // Writing in an archived conversation brings it back to the list.
      if (core.store.conversation(conversationId)?.archivedAt) core.store.setArchived(conversationId, null);
    }
    return sendJson(res, 202, result);
  }
  if (sub === 'messages' && parts.length === 4 && method === 'GET') {
    const before = numberParam(target.query, 'before', 0, Number.MAX_SAFE_INTEGER);
    const limit = numberParam(target.query, 'limit', 1, 500) ?? 100;
    return sendJson(res, 200, historyPage(core, conversationId, before, limit));
  }
  if (sub === 'turns' && parts.length === 4 && method === 'GET') {
    const before = numberParam(target.query, 'before', 0, Number.MAX_SAFE_INTEGER);
    const limit = numberParam(target.query, 'limit', 1, 200);
    return sendJson(res, 200, core.steps.history(conversationId, { before, limit }));
  }
  if (sub === 'events' && parts.length === 4 && method === 'GET') {
    const last = req.headers['last-event-id'] ?? target.query.get('lastEventId') ?? undefined;
    const since = last !== undefined && /^\d{1,15}$/.test(String(last)) ? Number(last) : undefined;
    core.store.ensureConversation(conversationId, WEB, key);
    return streamEvents(core, conversationId, req, res, since);
  }
  if (sub === 'permissions' && parts.length === 5 && method === 'POST') {
    const body = await readJsonObject(req, 4096);
    only(body, ['allow', 'optionId']);
    if (typeof body.allow !== 'boolean')
      throw new HttpError(400, 'BAD_REQUEST', 'The field "allow" is required and must be true or false.');
    const requestId = parts[4]!;
    const optionId = typeof body.optionId === 'string' ? body.optionId : undefined;
    if (!core.answerPermission(conversationId, requestId, body.allow, optionId, 'web:owner'))
      throw new HttpError(404, 'NOT_FOUND', 'No permission request with that id is waiting in this conversation.');
    return sendJson(res, 200, { ok: true });
  }
  if (await conversationRoute(core, req, res, { key, conversationId, segments: parts.slice(3), method })) return;
  throw new HttpError(404, 'NOT_FOUND', `No route ${method} ${target.path}.`);
}
