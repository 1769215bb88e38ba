/**
 * A fake Telegram Bot API on 127.0.0.1, enough for grammY pointed at it through `apiRoot`:
 * getMe, getUpdates (long polling with offsets), deleteWebhook/setWebhook, sendMessage,
 * editMessageText (with Telegram's "not modified" and "not found" refusals), sendMessageDraft
 * (private chats only), answerCallbackQuery, setMessageReaction, sendChatAction, getFile and file
 * downloads, and sendVoice/sendAudio/sendDocument as grammY uploads them (multipart/form-data, the
 * file as an attach:// part, parsed as leniently as Telegram does). The bot's messages are kept as
 * the chat shows them, a test can press their inline buttons (a callback_query update), every call
 * is recorded, and a test can script any method's answer (e.g. a 429 with parameters.retry_after).
 * Source of truth for shapes: https://core.telegram.org/bots/api
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { multipart, type UploadedFile } from './multipart.js';

export type { UploadedFile };

export interface FakeCall {
  seq: number;
  at: number;
  method: string;
  /** The call's parameters; a multipart call's JSON-encoded fields are decoded, its files are under `files`. */
  body: Record<string, any>;
  /** Files uploaded with the call, by the parameter that names them (voice, audio, document). */
  files?: Record<string, UploadedFile>;
}

/** A scripted answer: a full Bot API reply (ok or error) and an HTTP status. */
export interface FakeAnswer {
  status?: number;
  body: Record<string, unknown>;
}

export type MethodScript = (body: Record<string, any>, call: FakeCall) => FakeAnswer | undefined;

/** A message the bot sent, as the chat shows it now. */
export interface BotMessage {
  message_id: number;
  chatId: number;
  text: string;
  reply_markup?: { inline_keyboard?: Array<Array<{ text: string; callback_data?: string }>> };
  /** Every text it showed, the first one (sendMessage) included. */
  texts: string[];
}

export interface FakeTelegram {
  apiRoot: string;
  token: string;
  bot: { id: number; username: string; first_name: string };
  calls: FakeCall[];
  /** Chronological log of notable events: "getUpdates offset=N", "sendMessage", "file <path>" (a download), ... */
  log: string[];
  /** The bot's messages by message_id. */
  messages: Map<number, BotMessage>;
  /** Queues an update; update_id is assigned. Returns the id. */
  pushUpdate(update: Record<string, unknown>): number;
  /** A user presses an inline button of one of the bot's messages (a callback_query update). Returns the query id. */
  press(from: number, messageId: number, data: string): string;
  /** Serves a file for getFile(fileId). */
  addFile(fileId: string, data: Buffer | string, filePath?: string): void;
  script(method: string, fn: MethodScript | undefined): void;
  callsOf(method: string): FakeCall[];
  waitFor(pred: (c: FakeCall) => boolean, timeoutMs?: number): Promise<FakeCall>;
  close(): Promise<void>;
}

export async function startFakeTelegram(opts: { token?: string } = {}): Promise<FakeTelegram> {
  const token = opts.token ?? '123456789:AAFakeTokenForTestsOnly_abcdefghijk';
  const bot = {
    id: 123456789,
    is_bot: true,
    first_name: 'Rudder',
    username: 'rudder_test_bot',
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
  };
  const calls: FakeCall[] = [];
  const log: string[] = [];
  const updates: Array<Record<string, unknown> & { update_id: number }> = [];
  const files = new Map<string, { path: string; data: Buffer }>();
  const scripts = new Map<string, MethodScript>();
  const waiters: Array<() => void> = [];
  const pollers = new Set<() => void>();
  let nextUpdateId = 1000;
  let nextMessageId = 5000;
  let nextQuery = 1;
  let seq = 0;
  const messages = new Map<number, BotMessage>();
  const chatOf = (chatId: number) => ({
    id: chatId,
    type: chatId > 0 ? 'private' : 'supergroup',
    ...(chatId > 0 ? { first_name: 'P' } : { title: 'Group' }),
  });
  const bad = (description: string): FakeAnswer => ({ status: 400, body: { ok: false, error_code: 400, description } });

  const wake = () => {
    for (const w of waiters.splice(0)) w();
    for (const p of [...pollers]) p();
  };

  const reply = (res: http.ServerResponse, a: FakeAnswer) => {
    res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(a.body));
  };
  const ok = (result: unknown): FakeAnswer => ({ body: { ok: true, result } });

  const handle = async (
    method: string,
    body: Record<string, any>,
    res: http.ServerResponse,
    uploads?: Record<string, UploadedFile>,
  ) => {
    const call: FakeCall = { seq: ++seq, at: Date.now(), method, body, ...(uploads ? { files: uploads } : {}) };
    calls.push(call);
    if (method === 'getUpdates') log.push(`getUpdates offset=${body.offset ?? 0}`);
    else log.push(method);
    wake();
    const scripted = scripts.get(method)?.(body, call);
    if (scripted) return reply(res, scripted);
    switch (method) {
      case 'getMe':
        return reply(res, ok(bot));
      case 'deleteWebhook':
      case 'setWebhook':
      case 'setMessageReaction':
      case 'sendChatAction':
        return reply(res, ok(true));
      case 'getUpdates': {
        const offset = Number(body.offset ?? 0);
        // Confirming: everything below the offset is forgotten, as Telegram does.
        while (updates.length > 0 && updates[0]!.update_id < offset) updates.shift();
        const ready = () => updates.filter((u) => u.update_id >= offset).slice(0, Number(body.limit ?? 100));
        let batch = ready();
        const timeoutMs = Number(body.timeout ?? 0) * 1000;
        if (batch.length === 0 && timeoutMs > 0) {
          await new Promise<void>((resolve) => {
            const done = () => {
              pollers.delete(check);
              clearTimeout(timer);
              resolve();
            };
            const check = () => {
              if (ready().length > 0 || res.destroyed) done();
            };
            const timer = setTimeout(done, timeoutMs);
            pollers.add(check);
            res.on('close', done);
          });
          batch = ready();
        }
        if (res.destroyed) return;
        return reply(res, ok(batch));
      }
      case 'sendMessage': {
        const chatId = Number(body.chat_id);
        const id = ++nextMessageId;
        messages.set(id, {
          message_id: id,
          chatId,
          text: String(body.text),
          reply_markup: body.reply_markup,
          texts: [String(body.text)],
        });
        return reply(
          res,
          ok({
            message_id: id,
            date: Math.floor(Date.now() / 1000),
            chat: chatOf(chatId),
            text: body.text,
            ...(body.reply_markup ? { reply_markup: body.reply_markup } : {}),
          }),
        );
      }
      case 'editMessageText': {
        const m = messages.get(Number(body.message_id));
        if (!m || m.chatId !== Number(body.chat_id)) return reply(res, bad('Bad Request: message to edit not found'));
        if (
          m.text === String(body.text) &&
          JSON.stringify(m.reply_markup ?? null) === JSON.stringify(body.reply_markup ?? null)
        ) {
          return reply(
            res,
            bad(
              'Bad Request: message is not modified: specified new message content and reply markup of the ' +
                'message are exactly the same as a current content and reply markup of the message',
            ),
          );
        }
        m.text = String(body.text);
        m.reply_markup = body.reply_markup;
        m.texts.push(m.text);
        return reply(
          res,
          ok({
            message_id: m.message_id,
            date: Math.floor(Date.now() / 1000),
            edit_date: Math.floor(Date.now() / 1000),
            chat: chatOf(m.chatId),
            text: m.text,
            ...(m.reply_markup ? { reply_markup: m.reply_markup } : {}),
          }),
        );
      }
      case 'sendMessageDraft':
        if (!(Number(body.chat_id) > 0))
          return reply(res, bad('Bad Request: drafts can be sent to private chats only'));
        if (!Number(body.draft_id)) return reply(res, bad('Bad Request: draft_id must be non-zero'));
        return reply(res, ok(true));
      case 'answerCallbackQuery':
        return reply(res, ok(true));
      case 'sendVoice':
      case 'sendAudio':
      case 'sendDocument': {
        const field = method === 'sendVoice' ? 'voice' : method === 'sendAudio' ? 'audio' : 'document';
        const f = uploads?.[field];
        if (!f) return reply(res, bad(`Bad Request: there is no ${field} in the request`));
        const chatId = Number(body.chat_id);
        const id = ++nextMessageId;
        messages.set(id, { message_id: id, chatId, text: '', texts: [] });
        return reply(
          res,
          ok({
            message_id: id,
            date: Math.floor(Date.now() / 1000),
            chat: chatOf(chatId),
            [field]: { file_id: `up${id}`, file_unique_id: `uu${id}`, file_size: f.data.length, mime_type: f.type },
          }),
        );
      }
      case 'getFile': {
        const f = files.get(String(body.file_id));
        if (!f)
          return reply(res, {
            status: 400,
            body: { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' },
          });
        return reply(
          res,
          ok({
            file_id: body.file_id,
            file_unique_id: `u${body.file_id}`,
            file_size: f.data.length,
            file_path: f.path,
          }),
        );
      }
      default:
        return reply(res, {
          status: 404,
          body: { ok: false, error_code: 404, description: 'Not Found: method not found' },
        });
    }
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const fileMatch = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && fileMatch) {
      log.push(`file ${fileMatch[2]}`);
      const f = [...files.values()].find((x) => x.path === fileMatch[2]);
      if (fileMatch[1] !== token || !f)
        return reply(res, { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } });
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(f.data.length) });
      return res.end(f.data);
    }
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!m) return reply(res, { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (m[1] !== token)
        return reply(res, { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } });
      const type = String(req.headers['content-type'] ?? '');
      if (type.startsWith('multipart/form-data')) {
        void multipart(Buffer.concat(chunks), type).then(
          ({ body, files }) => handle(m[2]!, body, res, files),
          () => reply(res, bad('Bad Request: the multipart body could not be read')),
        );
        return;
      }
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, any> = {};
      if (raw) {
        try {
          body = JSON.parse(raw);
        } catch {
          return reply(res, {
            status: 400,
            body: { ok: false, error_code: 400, description: 'Bad Request: body is not JSON' },
          });
        }
      }
      void handle(m[2]!, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    bot,
    calls,
    log,
    messages,
    press(from, messageId, data) {
      const m = messages.get(messageId);
      if (!m) throw new Error(`fake telegram: no bot message ${messageId}`);
      const id = `cq${nextQuery++}`;
      const id2 = ++nextUpdateId;
      updates.push({
        update_id: id2,
        callback_query: {
          id,
          from: { id: from, is_bot: false, first_name: `U${from}` },
          chat_instance: `ci${m.chatId}`,
          data,
          message: {
            message_id: m.message_id,
            date: Math.floor(Date.now() / 1000),
            chat: chatOf(m.chatId),
            from: bot,
            text: m.text,
            ...(m.reply_markup ? { reply_markup: m.reply_markup } : {}),
          },
        },
      });
      wake();
      return id;
    },
    pushUpdate(update) {
      const id = ++nextUpdateId;
      updates.push({ ...update, update_id: id });
      wake();
      return id;
    },
    addFile(fileId, data, filePath) {
      files.set(fileId, {
        path: filePath ?? `files/${fileId}`,
        data: Buffer.isBuffer(data) ? data : Buffer.from(data),
      });
    },
    script(method, fn) {
      if (fn) scripts.set(method, fn);
      else scripts.delete(method);
    },
    callsOf(method) {
      return calls.filter((c) => c.method === method);
    },
    waitFor(pred, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = calls.find(pred);
          if (hit) {
            clearTimeout(timer);
            resolve(hit);
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => reject(new Error('fake telegram: waited too long for a call')), timeoutMs);
        if (check()) return;
        const loop = () => {
          if (!check()) waiters.push(loop);
        };
        waiters.push(loop);
      });
    },
    async close() {
      for (const p of [...pollers]) p();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
