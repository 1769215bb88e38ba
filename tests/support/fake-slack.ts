/**
 * A fake Slack on 127.0.0.1: the Web API methods Rudder calls (auth.test, apps.connections.open,
 * chat.postMessage, chat.update, chat.postEphemeral, reactions.add, conversations.replies, and a
 * file upload's three steps: files.getUploadURLExternal, the upload itself, files.completeUploadExternal),
 * private file downloads, and a Socket Mode WebSocket that sends `hello`, Events API envelopes and
 * interactive (block_actions) envelopes and records the acks, so @slack/bolt's SocketModeReceiver
 * handles them through its own code. The bot's messages are kept as the channel shows them.
 * Source of truth: https://api.slack.com/apis/socket-mode and https://api.slack.com/methods
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { multipart } from './multipart.js';

export interface SlackCall {
  seq: number;
  at: number;
  method: string;
  token?: string;
  args: Record<string, any>;
}

export interface SlackAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: Record<string, unknown>;
}

/** A file the bot uploaded: its bytes once uploaded, where it was shared once completed. */
export interface SlackUpload {
  id: string;
  filename: string;
  length: number;
  data?: Buffer;
  /** Set by files.completeUploadExternal. */
  shared?: { channel: string; threadTs?: string; title?: string; at: number };
}

/** A message the bot posted, as the channel shows it now. */
export interface SlackBotMessage {
  ts: string;
  channel: string;
  thread_ts?: string;
  text: string;
  blocks?: any[];
  /** Every text it showed, the first included. */
  texts: string[];
}

export interface FakeSlack {
  /** The bot's messages by ts. */
  messages: Map<string, SlackBotMessage>;
  /** A user presses a button of one of the bot's messages (a block_actions envelope); returns the envelope id. */
  press(user: string, ts: string, actionId: string, value: string): string;
  apiUrl: string;
  botToken: string;
  appToken: string;
  botUserId: string;
  calls: SlackCall[];
  /** Files uploaded by the bot, by file id. */
  uploads: Map<string, SlackUpload>;
  /** Envelope ids the client acknowledged, in order. */
  acks: string[];
  callsOf(method: string): SlackCall[];
  script(fn: ((call: SlackCall) => SlackAnswer | undefined) | undefined): void;
  /** Messages returned by conversations.replies, keyed "<channel>:<ts>". */
  threads: Map<string, Array<Record<string, unknown>>>;
  addFile(name: string, data: Buffer | string): string;
  /** Sends an Events API envelope; returns its envelope id. */
  sendEvent(event: Record<string, unknown>): string;
  connected(): Promise<void>;
  waitForAck(envelopeId: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const botToken = 'xoxb-1111-2222-faketokenfortests';
  const appToken = 'xapp-1-A111-3333-fakeapptokenfortests';
  const botUserId = 'UBOT0001';
  const calls: SlackCall[] = [];
  const acks: string[] = [];
  const threads = new Map<string, Array<Record<string, unknown>>>();
  const files = new Map<string, Buffer>();
  const sockets = new Set<WebSocket>();
  const ackWaiters: Array<() => void> = [];
  let script: ((call: SlackCall) => SlackAnswer | undefined) | undefined;
  let seq = 0;
  let envelopes = 0;
  let ts = 1_700_000_000;
  let onConnect: () => void = () => undefined;
  let connectedPromise = new Promise<void>((r) => (onConnect = r));
  const messages = new Map<string, SlackBotMessage>();
  const uploads = new Map<string, SlackUpload>();
  let fileIds = 0;
  const blocksOf = (b: unknown) => (typeof b === 'string' ? JSON.parse(b) : b) as any[] | undefined;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const auth = req.headers.authorization?.replace(/^Bearer /, '');
    if (req.method === 'GET' && url.pathname.startsWith('/files/')) {
      const data = files.get(url.pathname.slice('/files/'.length));
      if (auth !== botToken || !data) return res.writeHead(auth !== botToken ? 403 : 404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(data.length) });
      return res.end(data);
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    const upload = /^\/upload\/(F\w+)$/.exec(url.pathname);
    if (req.method === 'POST' && upload) {
      // The upload URL files.getUploadURLExternal gave: the client posts the file as multipart (field "body").
      req.on('end', async () => {
        const u = uploads.get(upload[1]!);
        if (!u) return res.writeHead(404).end();
        const form = await multipart(Buffer.concat(chunks), String(req.headers['content-type'] ?? ''));
        u.data = Object.values(form.files)[0]?.data ?? Buffer.concat(chunks);
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${u.data.length}`);
      });
      return;
    }
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const args: Record<string, any> = (req.headers['content-type'] ?? '').includes('json')
        ? raw
          ? JSON.parse(raw)
          : {}
        : Object.fromEntries(new URLSearchParams(raw));
      const method = url.pathname.replace(/^\/api\//, '');
      const token = auth ?? args.token;
      const call: SlackCall = { seq: ++seq, at: Date.now(), method, token, args };
      calls.push(call);
      const send = (a: SlackAnswer) => {
        res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...(a.headers ?? {}) });
        res.end(JSON.stringify(a.body));
      };
      const scripted = script?.(call);
      if (scripted) return send(scripted);
      const needsApp = method === 'apps.connections.open';
      if (token !== (needsApp ? appToken : botToken)) return send({ body: { ok: false, error: 'invalid_auth' } });
      const port = (server.address() as AddressInfo).port;
      switch (method) {
        case 'auth.test':
          return send({
            body: {
              ok: true,
              url: 'https://fake.slack.test/',
              team: 'Fake',
              user: 'rudder',
              team_id: 'T0001',
              user_id: botUserId,
              bot_id: 'B0001',
              is_enterprise_install: false,
            },
          });
        case 'apps.connections.open':
          return send({ body: { ok: true, url: `ws://127.0.0.1:${port}/link/?ticket=fake` } });
        case 'chat.postMessage': {
          const at = `${++ts}.000100`;
          messages.set(at, {
            ts: at,
            channel: args.channel,
            ...(args.thread_ts ? { thread_ts: args.thread_ts } : {}),
            text: args.text,
            blocks: blocksOf(args.blocks),
            texts: [args.text],
          });
          return send({
            body: { ok: true, channel: args.channel, ts: at, message: { text: args.text, user: botUserId } },
          });
        }
        case 'chat.update': {
          const m = messages.get(String(args.ts));
          if (!m || m.channel !== args.channel) return send({ body: { ok: false, error: 'message_not_found' } });
          m.text = args.text;
          m.blocks = blocksOf(args.blocks);
          m.texts.push(m.text);
          return send({ body: { ok: true, channel: m.channel, ts: m.ts, text: m.text } });
        }
        case 'chat.postEphemeral':
          return send({ body: { ok: true, message_ts: `${++ts}.000200` } });
        case 'reactions.add':
          return send({ body: { ok: true } });
        case 'files.getUploadURLExternal': {
          const id = `F${String(++fileIds).padStart(6, '0')}`;
          uploads.set(id, { id, filename: String(args.filename), length: Number(args.length) });
          return send({ body: { ok: true, upload_url: `http://127.0.0.1:${port}/upload/${id}`, file_id: id } });
        }
        case 'files.completeUploadExternal': {
          const list = (typeof args.files === 'string' ? JSON.parse(args.files) : args.files) as Array<{
            id: string;
            title?: string;
          }>;
          const missing = list.find((f) => !uploads.get(f.id)?.data);
          if (missing) return send({ body: { ok: false, error: 'file_not_found' } });
          for (const f of list)
            uploads.get(f.id)!.shared = {
              channel: String(args.channel_id),
              ...(args.thread_ts ? { threadTs: String(args.thread_ts) } : {}),
              ...(f.title ? { title: f.title } : {}),
              at: Date.now(),
            };
          return send({ body: { ok: true, files: list.map((f) => ({ id: f.id, title: f.title })) } });
        }
        case 'conversations.replies':
          return send({
            body: { ok: true, messages: threads.get(`${args.channel}:${args.ts}`) ?? [], has_more: false },
          });
        default:
          return send({ body: { ok: false, error: 'unknown_method' } });
      }
    });
  });

  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as { envelope_id?: string };
      if (msg.envelope_id) {
        acks.push(msg.envelope_id);
        for (const w of ackWaiters.splice(0)) w();
      }
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'fake', approximate_connection_time: 3600 },
        connection_info: { app_id: 'A111' },
      }),
    );
    onConnect();
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const sendFrame = (frame: Record<string, unknown>) => {
    for (const ws of sockets) ws.send(JSON.stringify(frame));
  };

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    botToken,
    appToken,
    botUserId,
    calls,
    messages,
    press(user, at, actionId, value) {
      const m = messages.get(at);
      if (!m) throw new Error(`fake slack: no bot message ${at}`);
      const envelopeId = `env-${++envelopes}`;
      sendFrame({
        envelope_id: envelopeId,
        type: 'interactive',
        accepts_response_payload: false,
        payload: {
          type: 'block_actions',
          token: 'verification',
          api_app_id: 'A111',
          trigger_id: `trig-${envelopes}`,
          user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: 'T0001' },
          team: { id: 'T0001', domain: 'fake' },
          container: { type: 'message', message_ts: m.ts, channel_id: m.channel, is_ephemeral: false },
          channel: { id: m.channel, name: 'chat' },
          message: {
            type: 'message',
            ts: m.ts,
            text: m.text,
            user: botUserId,
            blocks: m.blocks,
            ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
          },
          response_url: `http://127.0.0.1:${port}/response/${envelopes}`,
          actions: [
            {
              type: 'button',
              action_id: actionId,
              block_id: 'b1',
              value,
              action_ts: `${ts}.000300`,
              text: { type: 'plain_text', text: 'x' },
            },
          ],
        },
      });
      return envelopeId;
    },
    acks,
    uploads,
    threads,
    callsOf: (method) => calls.filter((c) => c.method === method),
    script(fn) {
      script = fn;
    },
    addFile(name, data) {
      files.set(name, Buffer.isBuffer(data) ? data : Buffer.from(data));
      return `http://127.0.0.1:${port}/files/${name}`;
    },
    sendEvent(event) {
      const envelopeId = `env-${++envelopes}`;
      const frame = {
        envelope_id: envelopeId,
        type: 'events_api',
        accepts_response_payload: false,
        retry_attempt: 0,
        retry_reason: '',
        payload: {
          token: 'verification',
          team_id: 'T0001',
          api_app_id: 'A111',
          type: 'event_callback',
          event_id: `Ev${envelopes}`,
          event_time: Math.floor(Date.now() / 1000),
          authorizations: [{ team_id: 'T0001', user_id: botUserId, is_bot: true, is_enterprise_install: false }],
          event: { event_ts: String(event.ts ?? `${ts}.000001`), ...event },
        },
      };
      for (const ws of sockets) ws.send(JSON.stringify(frame));
      return envelopeId;
    },
    connected: () => connectedPromise,
    waitForAck(envelopeId, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`fake slack: no ack for ${envelopeId}`)), timeoutMs);
        const check = () => {
          if (acks.includes(envelopeId)) {
            clearTimeout(timer);
            resolve();
          } else ackWaiters.push(check);
        };
        check();
      });
    },
    async close() {
      connectedPromise = new Promise<void>((r) => (onConnect = r));
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
