/**
 * The HTTP API of the built-in web channel (documented in the README; end-to-end tests and
 * `rudder send` use it):
 *   POST /api/conversations/:id/messages          {text, clientMessageId?} -> 202 {messageId, disposition}
 *   GET  /api/conversations/:id/events             SSE: ack, text, reply, permission, error, status
 *   POST /api/conversations/:id/permissions/:rid   {allow: boolean}
 *   GET  /api/conversations, POST /api/conversations, GET /api/conversations/:id/messages
 *   GET  /api/channels (states; a pending WhatsApp pairing QR as SVG), GET /api/status, GET /healthz
 * Every /api route needs the bearer token (header, or ?token= for EventSource).
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { GatewayCore } from '../../gateway/core.js';
import { MAX_TEXT_BYTES, conversationIdOf } from '../../gateway/intake.js';
import { statusReport } from '../../ops/status.js';
import { hasQrPairing } from '../registry.js';
import { HttpError, readJsonObject, sendJson } from './http.js';
import { qrSvg } from './qr-svg.js';
import { streamEvents } from './sse.js';

export const WEB = 'web';
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** JSON escaping can grow text up to 6x; the text limit itself is checked after parsing. */
const MAX_BODY = MAX_TEXT_BYTES * 6 + 4096;

function conversationKey(raw: string): string {
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'The conversation id is not valid URL encoding.');
  }
  if (!ID.test(id)) throw new HttpError(400, 'BAD_REQUEST', 'A conversation id is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit.');
  return id;
}

function only(body: Record<string, unknown>, allowed: string[]): void {
  const extra = Object.keys(body).filter((k) => !allowed.includes(k));
  if (extra.length) throw new HttpError(400, 'BAD_REQUEST', `Unknown field(s): ${extra.join(', ')}. Allowed: ${allowed.join(', ')}.`);
}

export async function handleApi(core: GatewayCore, req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
  const parts = url.pathname.split('/').filter(Boolean); // ['api', ...]
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
  if (parts[1] !== 'conversations') throw new HttpError(404, 'NOT_FOUND', `No route ${method} ${url.pathname}.`);

  if (parts.length === 2) {
    if (method === 'GET') {
      const list = core.store.conversations(WEB).map((c) => ({ id: c.key, title: c.title, updatedAt: c.updatedAt, sessionId: c.sessionId }));
      return sendJson(res, 200, { conversations: list });
    }
    if (method === 'POST') {
      const body = req.headers['content-length'] === '0' ? {} : await readJsonObject(req, 4096).catch(() => ({}) as Record<string, unknown>);
      const title = typeof body.title === 'string' ? body.title.slice(0, 200) : null;
      const key = `c-${randomUUID().slice(0, 8)}`;
      core.store.ensureConversation(conversationIdOf(WEB, key), WEB, key, title ?? undefined);
      return sendJson(res, 201, { id: key });
    }
    throw new HttpError(405, 'BAD_REQUEST', 'Use GET or POST.');
  }

  const key = conversationKey(parts[2]!);
  const conversationId = conversationIdOf(WEB, key);
  const sub = parts[3];

  if (sub === 'messages' && parts.length === 4 && method === 'POST') {
    const body = await readJsonObject(req, MAX_BODY);
    only(body, ['text', 'clientMessageId']);
    if (typeof body.text !== 'string') throw new HttpError(400, 'BAD_REQUEST', 'The field "text" is required and must be a string.');
    if (!body.text.trim()) throw new HttpError(400, 'BAD_REQUEST', 'The field "text" is empty.');
    if (body.text.includes('\0')) throw new HttpError(400, 'BAD_REQUEST', 'The text contains a NUL character (\\u0000), which cannot be passed to the agent. Remove it and send the text again.');
    if (Buffer.byteLength(body.text, 'utf8') > MAX_TEXT_BYTES) throw new HttpError(400, 'BAD_REQUEST', `The text is over ${MAX_TEXT_BYTES / 1024} KB; send it as a file or in parts.`);
    const cm = body.clientMessageId;
    if (cm !== undefined && (typeof cm !== 'string' || cm.length === 0 || cm.length > 200)) throw new HttpError(400, 'BAD_REQUEST', 'clientMessageId must be a string of 1-200 characters.');
    const result = await core.accept({
      channel: WEB,
      platformMessageId: (cm as string | undefined) ?? `web-${randomUUID()}`,
      conversationKey: key,
      sender: { id: 'owner', name: 'web' },
      chatType: 'direct',
      text: body.text,
      sentAt: Date.now(),
    });
    return sendJson(res, 202, result);
  }
  if (sub === 'messages' && parts.length === 4 && method === 'GET') {
    const messages = core.store.recentMessages(conversationId, 200).map((m) => ({ id: m.id, text: m.text, state: m.state, reason: m.reason, turnId: m.turnId, receivedAt: m.receivedAt }));
    const replies = core.store.recentOutbox(conversationId, 200).filter((o) => o.deliveredAt).map((o) => ({ id: o.id, kind: o.kind, text: o.text, messageIds: o.messageIds, fromFallback: o.fromFallback, at: o.deliveredAt }));
    return sendJson(res, 200, { messages, replies, lastEventId: core.store.lastEventSeq(conversationId) });
  }
  if (sub === 'events' && parts.length === 4 && method === 'GET') {
    const last = req.headers['last-event-id'] ?? url.searchParams.get('lastEventId') ?? undefined;
    const since = last !== undefined && /^\d{1,15}$/.test(String(last)) ? Number(last) : undefined;
    core.store.ensureConversation(conversationId, WEB, key);
    return streamEvents(core, conversationId, req, res, since);
  }
  if (sub === 'permissions' && parts.length === 5 && method === 'POST') {
    const body = await readJsonObject(req, 4096);
    only(body, ['allow', 'optionId']);
    if (typeof body.allow !== 'boolean') throw new HttpError(400, 'BAD_REQUEST', 'The field "allow" is required and must be true or false.');
    const requestId = decodeURIComponent(parts[4]!);
    const optionId = typeof body.optionId === 'string' ? body.optionId : undefined;
    if (!core.answerPermission(conversationId, requestId, body.allow, optionId)) throw new HttpError(404, 'NOT_FOUND', 'No permission request with that id is waiting in this conversation.');
    return sendJson(res, 200, { ok: true });
  }
  throw new HttpError(404, 'NOT_FOUND', `No route ${method} ${url.pathname}.`);
}
