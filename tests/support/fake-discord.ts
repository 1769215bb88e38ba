/**
 * A fake Discord on 127.0.0.1: the REST API under /api/v10 (gateway/bot, users/@me, messages and
 * their edits (also with files, multipart), reactions, typing, interaction callbacks, and a CDN path
 * for attachments) and a
 * gateway WebSocket that speaks the real protocol (HELLO, IDENTIFY, READY, GUILD_CREATE,
 * heartbeats, dispatches), so discord.js connects with client.login() and handles every event
 * through its own packet handling. The bot's messages are kept as the channel shows them, and a
 * test can press their buttons (an INTERACTION_CREATE dispatch).
 * Source of truth: https://discord.com/developers/docs/events/gateway and .../topics/rate-limits
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { multipart, type UploadedFile } from './multipart.js';

export interface DiscordCall {
  seq: number;
  at: number;
  method: string;
  /** Path below /api/v10, e.g. "/channels/1/messages". */
  path: string;
  body: any;
  /** Files uploaded with the call (multipart: payload_json is the body, files[n] the files). */
  files?: UploadedFile[];
}

export interface RestAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type RestScript = (call: DiscordCall) => RestAnswer | undefined;

export interface FakeGuild {
  id: string;
  channels: Array<{ id: string; name: string; type?: number }>;
  threads?: Array<{ id: string; name: string; parent_id: string; type?: number }>;
}

/** A message the bot posted, as the channel shows it now. */
export interface DiscordBotMessage {
  id: string;
  channelId: string;
  content: string;
  components: any[];
  flags?: number;
  /** Every content it showed, the first included. */
  contents: string[];
}

export interface FakeDiscord {
  /** The bot's messages by id. */
  messages: Map<string, DiscordBotMessage>;
  /** A user presses a button of one of the bot's messages; returns the interaction id. */
  press(
    user: { id: string; username: string; global_name?: string | null },
    messageId: string,
    customId: string,
    guildId?: string,
  ): string;
  restApi: string;
  token: string;
  bot: { id: string; username: string };
  calls: DiscordCall[];
  callsTo(method: string, pathPrefix: RegExp): DiscordCall[];
  script(fn: RestScript | undefined): void;
  /** Serves bytes at a CDN-like URL; returns the URL. */
  addFile(name: string, data: Buffer | string): string;
  /** Sends a gateway dispatch (op 0) to every connected client. */
  dispatch(t: string, d: unknown): void;
  /** Resolves once a client identified and got READY and the guilds. */
  ready(): Promise<void>;
  waitFor(pred: (c: DiscordCall) => boolean, timeoutMs?: number): Promise<DiscordCall>;
  close(): Promise<void>;
}

/** A person's message that mentions the bot, as the gateway's MESSAGE_CREATE carries it. */
export function botMention(
  fake: FakeDiscord,
  m: { id: string; channelId: string; guildId: string; author: object; text: string; at?: number },
): Record<string, unknown> {
  return {
    id: m.id,
    channel_id: m.channelId,
    guild_id: m.guildId,
    author: m.author,
    content: `<@${fake.bot.id}> ${m.text}`,
    mentions: [{ ...fake.bot }],
    tts: false,
    mention_everyone: false,
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    type: 0,
    timestamp: new Date(m.at ?? Date.now()).toISOString(),
    edited_timestamp: null,
    flags: 0,
  };
}

export async function startFakeDiscord(
  opts: { token?: string; guilds?: FakeGuild[]; closeOnIdentify?: number } = {},
): Promise<FakeDiscord> {
  const token = opts.token ?? 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GfAkEt.fake-token-for-tests_only_abcdefghij';
  const bot = {
    id: '900000000000000001',
    username: 'rudder-test',
    discriminator: '0',
    global_name: null,
    avatar: null,
    bot: true,
  };
  const guilds = opts.guilds ?? [];
  const calls: DiscordCall[] = [];
  const files = new Map<string, Buffer>();
  const waiters: Array<() => void> = [];
  const sockets = new Set<WebSocket>();
  let script: RestScript | undefined;
  let seq = 0;
  let gatewaySeq = 0;
  let nextId = 1_100_000_000_000_000_000n;
  const messages = new Map<string, DiscordBotMessage>();
  const apiMessage = (m: DiscordBotMessage) => ({
    id: m.id,
    channel_id: m.channelId,
    content: m.content,
    components: m.components,
    author: bot,
    timestamp: new Date().toISOString(),
    edited_timestamp: m.contents.length > 1 ? new Date().toISOString() : null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    type: 0,
    flags: m.flags ?? 0,
  });
  let readyResolve: () => void = () => undefined;
  let readyPromise = new Promise<void>((r) => (readyResolve = r));

  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname.startsWith('/cdn/')) {
      const data = files.get(url.pathname.slice('/cdn/'.length));
      if (!data) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(data.length) });
      return res.end(data);
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const send = (a: RestAnswer) => {
        const headers = {
          ...(a.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(a.headers ?? {}),
        };
        res.writeHead(a.status, headers);
        res.end(a.body === undefined ? undefined : JSON.stringify(a.body));
      };
      if (!url.pathname.startsWith('/api/v10/'))
        return send({ status: 404, body: { message: '404: Not Found', code: 0 } });
      // Interaction callbacks are authorised by the interaction's own token, not the bot's.
      const interaction = url.pathname.startsWith('/api/v10/interactions/');
      if (!interaction && req.headers.authorization !== `Bot ${token}`)
        return send({ status: 401, body: { message: '401: Unauthorized', code: 0 } });
      const type = String(req.headers['content-type'] ?? '');
      let body: any;
      let uploads: UploadedFile[] | undefined;
      if (type.startsWith('multipart/form-data')) {
        const form = await multipart(Buffer.concat(chunks), type);
        body = typeof form.body.payload_json === 'object' ? form.body.payload_json : {};
        uploads = Object.values(form.files);
      } else {
        const raw = Buffer.concat(chunks).toString('utf8');
        body = raw ? JSON.parse(raw) : undefined;
      }
      const call: DiscordCall = {
        seq: ++seq,
        at: Date.now(),
        method: req.method ?? 'GET',
        path: url.pathname.slice('/api/v10'.length),
        body,
        ...(uploads ? { files: uploads } : {}),
      };
      calls.push(call);
      wake();
      const scripted = script?.(call);
      if (scripted) return send(scripted);
      const port = (server.address() as AddressInfo).port;
      if (call.method === 'GET' && call.path === '/gateway/bot') {
        return send({
          status: 200,
          body: {
            url: `ws://127.0.0.1:${port}`,
            shards: 1,
            session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
          },
        });
      }
      if (call.method === 'GET' && call.path === '/users/@me') return send({ status: 200, body: bot });
      const msg = /^\/channels\/(\d+)\/messages$/.exec(call.path);
      if (call.method === 'POST' && msg) {
        const id = String(nextId++);
        const m: DiscordBotMessage = {
          id,
          channelId: msg[1]!,
          content: call.body?.content ?? '',
          components: call.body?.components ?? [],
          flags: call.body?.flags,
          contents: [call.body?.content ?? ''],
        };
        messages.set(id, m);
        return send({ status: 200, body: apiMessage(m) });
      }
      const edit = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(call.path);
      if (call.method === 'PATCH' && edit) {
        const m = messages.get(edit[2]!);
        if (!m || m.channelId !== edit[1])
          return send({ status: 404, body: { message: 'Unknown Message', code: 10008 } });
        if (call.body?.content !== undefined) m.content = call.body.content;
        if (call.body?.components !== undefined) m.components = call.body.components;
        m.contents.push(m.content);
        return send({ status: 200, body: apiMessage(m) });
      }
      if (call.method === 'POST' && /^\/interactions\/\d+\/[^/]+\/callback$/.test(call.path))
        return send({ status: 204 });
      if (call.method === 'PUT' && /\/reactions\/[^/]+\/@me$/.test(call.path)) return send({ status: 204 });
      if (call.method === 'POST' && /^\/channels\/\d+\/typing$/.test(call.path)) return send({ status: 204 });
      return send({ status: 404, body: { message: '404: Not Found', code: 0 } });
    });
  });

  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 41_250 }, s: null, t: null }));
    ws.on('message', (data) => {
      const p = JSON.parse(String(data)) as { op: number; d: any };
      if (p.op === 1) return ws.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
      if (p.op !== 2) return;
      if (p.d?.token !== token) return ws.close(4004, 'Authentication failed.');
      if (opts.closeOnIdentify) return ws.close(opts.closeOnIdentify, 'Disallowed intent(s).');
      const port = (server.address() as AddressInfo).port;
      ws.send(
        JSON.stringify({
          op: 0,
          t: 'READY',
          s: ++gatewaySeq,
          d: {
            v: 10,
            user: bot,
            session_id: 'fake-session',
            resume_gateway_url: `ws://127.0.0.1:${port}`,
            shard: [0, 1],
            guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
            application: { id: bot.id, flags: 0 },
          },
        }),
      );
      for (const g of guilds) {
        ws.send(
          JSON.stringify({
            op: 0,
            t: 'GUILD_CREATE',
            s: ++gatewaySeq,
            d: {
              id: g.id,
              name: `guild ${g.id}`,
              icon: null,
              owner_id: '1',
              afk_timeout: 300,
              verification_level: 0,
              default_message_notifications: 0,
              explicit_content_filter: 0,
              features: [],
              mfa_level: 0,
              premium_tier: 0,
              preferred_locale: 'en-US',
              nsfw_level: 0,
              unavailable: false,
              member_count: 2,
              large: false,
              joined_at: new Date().toISOString(),
              roles: [
                {
                  id: g.id,
                  name: '@everyone',
                  permissions: '1024',
                  position: 0,
                  color: 0,
                  hoist: false,
                  managed: false,
                  mentionable: false,
                  flags: 0,
                },
              ],
              emojis: [],
              stickers: [],
              members: [],
              presences: [],
              voice_states: [],
              stage_instances: [],
              guild_scheduled_events: [],
              channels: g.channels.map((c, i) => ({
                id: c.id,
                name: c.name,
                type: c.type ?? 0,
                guild_id: g.id,
                position: i,
                permission_overwrites: [],
              })),
              threads: (g.threads ?? []).map((t) => ({
                id: t.id,
                name: t.name,
                type: t.type ?? 11,
                guild_id: g.id,
                parent_id: t.parent_id,
                owner_id: '1',
                message_count: 0,
                member_count: 1,
                thread_metadata: {
                  archived: false,
                  auto_archive_duration: 1440,
                  archive_timestamp: new Date().toISOString(),
                  locked: false,
                },
              })),
            },
          }),
        );
      }
      readyResolve();
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const dispatch = (t: string, d: unknown) => {
    const frame = JSON.stringify({ op: 0, t, s: ++gatewaySeq, d });
    for (const ws of sockets) ws.send(frame);
  };

  return {
    restApi: `http://127.0.0.1:${port}/api`,
    token,
    bot,
    calls,
    messages,
    press(user, messageId, customId, guildId) {
      const m = messages.get(messageId);
      if (!m) throw new Error(`fake discord: no bot message ${messageId}`);
      const id = String(nextId++);
      const who = { ...user, discriminator: '0', avatar: null, global_name: user.global_name ?? null };
      dispatch('INTERACTION_CREATE', {
        id,
        application_id: bot.id,
        type: 3,
        token: `itoken-${id}`,
        version: 1,
        data: { custom_id: customId, component_type: 2 },
        channel_id: m.channelId,
        channel: { id: m.channelId, type: guildId ? 0 : 1 },
        ...(guildId
          ? {
              guild_id: guildId,
              member: {
                user: who,
                roles: [],
                joined_at: new Date().toISOString(),
                deaf: false,
                mute: false,
                flags: 0,
                permissions: '1024',
              },
            }
          : { user: who }),
        message: apiMessage(m),
        app_permissions: '1024',
        locale: 'en-US',
        entitlements: [],
        authorizing_integration_owners: {},
        context: guildId ? 0 : 1,
      });
      return id;
    },
    callsTo: (method, re) => calls.filter((c) => c.method === method && re.test(c.path)),
    script(fn) {
      script = fn;
    },
    addFile(name, data) {
      files.set(name, Buffer.isBuffer(data) ? data : Buffer.from(data));
      return `http://127.0.0.1:${port}/cdn/${name}`;
    },
    dispatch,
    ready: () => readyPromise,
    waitFor(pred, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('fake discord: waited too long for a call')), timeoutMs);
        const check = () => {
          const hit = calls.find(pred);
          if (hit) {
            clearTimeout(timer);
            resolve(hit);
          } else waiters.push(check);
        };
        check();
      });
    },
    async close() {
      readyPromise = new Promise<void>((r) => (readyResolve = r));
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
