/**
 * The chat channels as surfaces: the real channel libraries (grammY, discord.js, @slack/bolt,
 * Baileys) against the fakes of their platform APIs, a person's message pushed in the way the
 * platform delivers it, and what the bot shows read from the fake's call log, timed when the call
 * reached the fake (its clock: Date.now()).
 */
import type { WAMessage } from '@whiskeysockets/baileys';
import type { Channel } from '../../src/channels/channel.js';
import { WhatsAppChannel } from '../../src/channels/whatsapp/channel.js';
import { whatsappSchema } from '../../src/config/channels-schema.js';
import type { Logger } from '../../src/ops/logger.js';
import { botMention, type FakeDiscord, startFakeDiscord } from '../../tests/support/fake-discord.js';
import { type FakeSlack, startFakeSlack } from '../../tests/support/fake-slack.js';
import { type FakeTelegram, startFakeTelegram } from '../../tests/support/fake-telegram.js';
import { type FakeWhatsApp, startFakeWhatsApp } from '../../tests/support/fake-whatsapp.js';
import { firstCall, type Surface } from './surfaces.js';

const TG_OWNER = 111;
const DISCORD_GUILD = '500000000000000001';
const DISCORD_CHANNEL = '600000000000000001';
const DISCORD_OWNER = {
  id: '420000000000000001',
  username: 'ann',
  discriminator: '0',
  global_name: 'Ann',
  avatar: null,
};
const SLACK_OWNER = 'U0ANN';
const SLACK_DM = 'D0ANN';
const WA_OWNER = '4915551112222';
const WA_JID = `${WA_OWNER}@s.whatsapp.net`;
const WA_ME = { id: '4915550000001:3@s.whatsapp.net', lid: '987654321:3@lid', name: 'Rudder' };

export interface ChatFakes {
  telegram: FakeTelegram;
  discord: FakeDiscord;
  slack: FakeSlack;
  whatsapp: FakeWhatsApp;
  /** The gateway's channels config for the first three (WhatsApp comes as an extra channel). */
  config: Record<string, unknown>;
  /** The WhatsApp channel on the fake socket, for startInProcess({ extraChannels }). */
  whatsappChannel(dataDir: string, logger: Logger): Channel;
  /** After the gateway started: wait for the connections, pair WhatsApp. */
  connect(): Promise<void>;
  surfaces(): Surface[];
  close(): Promise<void>;
}

export async function startChatFakes(): Promise<ChatFakes> {
  const telegram = await startFakeTelegram();
  const discord = await startFakeDiscord({
    guilds: [{ id: DISCORD_GUILD, channels: [{ id: DISCORD_CHANNEL, name: 'build' }] }],
  });
  const slack = await startFakeSlack();
  const whatsapp = await startFakeWhatsApp();
  let ids = 1;
  const waConfig = whatsappSchema.parse({ owners: [WA_OWNER], printQr: false, webSocketUrl: whatsapp.webSocketUrl });

  const tg: Surface = {
    name: 'telegram',
    async send(text) {
      const id = ids++;
      const at = Date.now();
      telegram.pushUpdate({
        message: {
          message_id: id,
          date: Math.floor(at / 1000),
          chat: { id: TG_OWNER, type: 'private', first_name: 'P' },
          from: { id: TG_OWNER, is_bot: false, first_name: 'P' },
          text,
        },
      });
      return { at, ref: String(id) };
    },
    probes: [
      {
        name: '👀 reaction (setMessageReaction)',
        kind: 'ack',
        seen: (s, _t, ms) =>
          firstCall(
            () => telegram.calls,
            (c) => c.method === 'setMessageReaction' && String(c.body.message_id) === s.ref,
            ms,
          ),
      },
      {
        name: 'typing… (sendChatAction)',
        kind: 'progress',
        seen: (s, _t, ms) =>
          firstCall(
            () => telegram.calls,
            (c) => c.method === 'sendChatAction' && c.at >= s.at,
            ms,
          ),
      },
      {
        name: 'first text (sendMessage)',
        kind: 'text',
        seen: (_s, tag, ms) =>
          firstCall(
            () => telegram.calls,
            (c) => c.method === 'sendMessage' && String(c.body.text).includes(`done ${tag}`),
            ms,
          ),
      },
    ],
  };

  const dc: Surface = {
    name: 'discord',
    async send(text) {
      const id = String(3_000_000 + ids++);
      const at = Date.now();
      discord.dispatch(
        'MESSAGE_CREATE',
        botMention(discord, {
          id,
          channelId: DISCORD_CHANNEL,
          guildId: DISCORD_GUILD,
          author: DISCORD_OWNER,
          text,
          at,
        }),
      );
      return { at, ref: id };
    },
    probes: [
      {
        name: '👀 reaction (PUT …/reactions)',
        kind: 'ack',
        seen: (s, _t, ms) =>
          firstCall(
            () => discord.calls,
            (c) => c.method === 'PUT' && c.path.startsWith(`/channels/${DISCORD_CHANNEL}/messages/${s.ref}/reactions/`),
            ms,
          ),
      },
      {
        name: 'typing… (POST …/typing)',
        kind: 'progress',
        seen: (s, _t, ms) =>
          firstCall(
            () => discord.calls,
            (c) => c.method === 'POST' && c.path === `/channels/${DISCORD_CHANNEL}/typing` && c.at >= s.at,
            ms,
          ),
      },
      {
        name: 'first text (POST …/messages)',
        kind: 'text',
        seen: (_s, tag, ms) =>
          firstCall(
            () => discord.calls,
            (c) =>
              c.method === 'POST' &&
              c.path === `/channels/${DISCORD_CHANNEL}/messages` &&
              String(c.body?.content ?? '').includes(`done ${tag}`),
            ms,
          ),
      },
    ],
  };

  let ts = 1_800_000_000;
  const sl: Surface = {
    name: 'slack',
    async send(text) {
      const stamp = `${ts++}.000100`;
      const at = Date.now();
      slack.sendEvent({ type: 'message', channel: SLACK_DM, channel_type: 'im', user: SLACK_OWNER, text, ts: stamp });
      return { at, ref: stamp };
    },
    probes: [
      {
        name: 'eyes reaction (reactions.add)',
        kind: 'ack',
        seen: (s, _t, ms) =>
          firstCall(
            () => slack.calls,
            (c) => c.method === 'reactions.add' && c.args.timestamp === s.ref,
            ms,
          ),
      },
      {
        name: 'first text (chat.postMessage)',
        kind: 'text',
        seen: (_s, tag, ms) =>
          firstCall(
            () => slack.calls,
            (c) => c.method === 'chat.postMessage' && String(c.args.text ?? '').includes(`done ${tag}`),
            ms,
          ),
      },
    ],
  };

  const wa: Surface = {
    name: 'whatsapp',
    async send(text) {
      const id = `BENCH${ids++}`;
      const at = Date.now();
      const m: WAMessage = {
        key: { remoteJid: WA_JID, id, fromMe: false },
        pushName: 'Ann',
        messageTimestamp: Math.floor(at / 1000),
        message: { conversation: text },
      };
      whatsapp.socket().ev.emit('messages.upsert', { messages: [m], type: 'notify' });
      return { at, ref: id };
    },
    probes: [
      {
        name: '👀 reaction (react message)',
        kind: 'ack',
        seen: (s, _t, ms) =>
          firstCall(
            () => whatsapp.sent,
            (c) => c.content?.react?.key?.id === s.ref,
            ms,
          ),
      },
      {
        name: 'typing… (presence composing)',
        kind: 'progress',
        seen: (s, _t, ms) =>
          firstCall(
            () => whatsapp.presence,
            (c) => c.type === 'composing' && c.at >= s.at,
            ms,
          ),
      },
      {
        name: 'first text (sendMessage)',
        kind: 'text',
        seen: (_s, tag, ms) =>
          firstCall(
            () => whatsapp.sent,
            (c) => String(c.content?.text ?? '').includes(`done ${tag}`),
            ms,
          ),
      },
    ],
  };

  return {
    telegram,
    discord,
    slack,
    whatsapp,
    config: {
      telegram: { token: telegram.token, apiRoot: telegram.apiRoot, owners: [TG_OWNER], pollTimeoutSeconds: 30 },
      discord: {
        token: discord.token,
        restApi: discord.restApi,
        owners: [DISCORD_OWNER.id],
        groups: { allow: [DISCORD_CHANNEL] },
      },
      slack: { botToken: slack.botToken, appToken: slack.appToken, apiUrl: slack.apiUrl, owners: [SLACK_OWNER] },
      // Access settings only: the channel itself is the extra one on the fake socket.
      whatsapp: { enabled: false, owners: [WA_OWNER] },
    },
    whatsappChannel: (dataDir, logger) =>
      new WhatsAppChannel({ config: waConfig, dataDir, logger, socketFactory: (c) => whatsapp.factory(c) }),
    async connect() {
      await Promise.all([discord.ready(), slack.connected()]);
      const sock = whatsapp.socket();
      await new Promise((r) => setImmediate(r));
      sock.ev.emit('creds.update', { me: WA_ME });
      sock.ev.emit('connection.update', { connection: 'open' });
    },
    surfaces: () => [tg, dc, sl, wa],
    async close() {
      await Promise.allSettled([telegram.close(), discord.close(), slack.close(), whatsapp.close()]);
    },
  };
}
