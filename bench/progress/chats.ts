/**
 * The four chat channels against their fakes, for the progress benchmark: each gives a way to
 * say something as the owner, and the times at which the platform saw progress cards posted and
 * edited (stamped by the fake when the request arrived).
 */
import { WhatsAppChannel } from '../../src/channels/whatsapp/channel.js';
import { whatsappSchema } from '../../src/config/channels-schema.js';
import { silentLogger } from '../../src/ops/logger.js';
import { tempDir } from '../../tests/support/claude-rig.js';
import { botMention, startFakeDiscord } from '../../tests/support/fake-discord.js';
import { startFakeSlack } from '../../tests/support/fake-slack.js';
import { startFakeTelegram } from '../../tests/support/fake-telegram.js';
import { startFakeWhatsApp } from '../../tests/support/fake-whatsapp.js';

export interface CardCalls {
  /** Each card the platform saw, by when it was posted, with the times of its edits. */
  cards: Array<{ postedAt: number; edits: number[] }>;
}

export interface Chat {
  name: 'telegram' | 'discord' | 'slack' | 'whatsapp';
  conversationId: string;
  say(text: string): void;
  calls(): CardCalls;
  /** Replies whose text is exactly this, seen by the platform. */
  replies(text: string): number;
}

export interface Chats {
  /** The `channels` config section. */
  config: Record<string, unknown>;
  /** Channels built outside the config (WhatsApp on the fake socket). */
  extra: WhatsAppChannel[];
  /** Once the gateway runs: connects what needs connecting and returns the four chats. */
  ready(): Promise<Chat[]>;
  close(): Promise<void>;
}

const OWNER_TG = 111;
const DC_GUILD = '500000000000000001';
const DC_CHAN = '600000000000000001';
const DC_OWNER = { id: '420000000000000001', username: 'ann', discriminator: '0', global_name: 'Ann', avatar: null };
const SL_OWNER = 'U0ANN';
const WA_ME = { id: '4915550000001:3@s.whatsapp.net', lid: '987654321:3@lid', name: 'Rudder' };
const WA_ANN = '4915551112222@s.whatsapp.net';

export async function startChats(): Promise<Chats> {
  const tg = await startFakeTelegram();
  const dc = await startFakeDiscord({ guilds: [{ id: DC_GUILD, channels: [{ id: DC_CHAN, name: 'general' }] }] });
  const sl = await startFakeSlack();
  const wa = await startFakeWhatsApp();
  const waChannel = new WhatsAppChannel({
    config: whatsappSchema.parse({ printQr: false, webSocketUrl: wa.webSocketUrl, owners: ['4915551112222'] }),
    dataDir: tempDir('bench-wa'),
    logger: silentLogger(),
    socketFactory: (c) => wa.factory(c),
  });
  let n = 1;

  const chats: Chat[] = [
    {
      name: 'telegram',
      conversationId: `telegram:${OWNER_TG}`,
      say: (text) =>
        void tg.pushUpdate({
          message: {
            message_id: n++,
            date: Math.floor(Date.now() / 1000),
            chat: { id: OWNER_TG, type: 'private', first_name: 'P' },
            from: { id: OWNER_TG, is_bot: false, first_name: 'P' },
            text,
          },
        }),
      calls: () => {
        // The fake keeps the bot's messages in the order they were sent, as the sendMessage calls came.
        const sent = tg.callsOf('sendMessage');
        const kept = [...tg.messages.values()];
        const posts = sent
          .map((c, i) => ({ c, id: kept[i]?.message_id }))
          .filter((x) => String(x.c.body.text).startsWith('⏳'));
        const edits = tg.callsOf('editMessageText');
        return {
          cards: posts.map((p) => ({
            postedAt: p.c.at,
            edits: edits.filter((e) => Number(e.body.message_id) === p.id).map((e) => e.at),
          })),
        };
      },
      replies: (text) => tg.callsOf('sendMessage').filter((c) => c.body.text === text).length,
    },
    {
      name: 'discord',
      conversationId: `discord:${DC_CHAN}`,
      say: (text) =>
        dc.dispatch(
          'MESSAGE_CREATE',
          botMention(dc, { id: String(9000 + n++), channelId: DC_CHAN, guildId: DC_GUILD, author: DC_OWNER, text }),
        ),
      calls: () => {
        const sent = dc.calls.filter((c) => c.method === 'POST' && /^\/channels\/\d+\/messages$/.test(c.path));
        const kept = [...dc.messages.values()];
        const posts = sent.map((c, i) => ({ c, id: kept[i]?.id })).filter((x) => x.c.body?.flags === 4096);
        const edits = dc.calls.filter((c) => c.method === 'PATCH');
        return {
          cards: posts.map((p) => ({
            postedAt: p.c.at,
            edits: edits.filter((e) => e.path.endsWith(`/messages/${p.id}`)).map((e) => e.at),
          })),
        };
      },
      replies: (text) => [...dc.messages.values()].filter((m) => m.content === text).length,
    },
    {
      name: 'slack',
      conversationId: 'slack:D0ANN',
      say: (text) =>
        void sl.sendEvent({
          type: 'message',
          channel: 'D0ANN',
          channel_type: 'im',
          user: SL_OWNER,
          text,
          ts: `${1_700_000_000 + n++}.000100`,
        }),
      calls: () => {
        const sent = sl.callsOf('chat.postMessage');
        const kept = [...sl.messages.values()];
        const posts = sent
          .map((c, i) => ({ c, ts: kept[i]?.ts }))
          .filter((x) => String(x.c.args.text).startsWith('⏳'));
        const edits = sl.callsOf('chat.update');
        return {
          cards: posts.map((p) => ({
            postedAt: p.c.at,
            edits: edits.filter((e) => e.args.ts === p.ts).map((e) => e.at),
          })),
        };
      },
      replies: (text) => sl.callsOf('chat.postMessage').filter((c) => c.args.text === text).length,
    },
    {
      name: 'whatsapp',
      conversationId: `whatsapp:${WA_ANN}`,
      say: (text) =>
        wa.socket().ev.emit('messages.upsert', {
          type: 'notify',
          messages: [
            {
              key: { remoteJid: WA_ANN, id: `B${n++}`, fromMe: false },
              pushName: 'Ann',
              messageTimestamp: Math.floor(Date.now() / 1000),
              message: { conversation: text },
            },
          ],
        }),
      calls: () => {
        // The fake socket gives the n-th message it sent the id SENT<n>.
        const sent = wa.sent.map((s, i) => ({ ...s, id: `SENT${i + 1}` }));
        const posts = sent.filter((s) => !s.content.edit && String(s.content.text ?? '').startsWith('⏳'));
        return {
          cards: posts.map((p) => ({
            postedAt: p.at,
            edits: sent.filter((e) => e.content.edit?.id === p.id).map((e) => e.at),
          })),
        };
      },
      replies: (text) => wa.sent.filter((s) => s.content.text === text).length,
    },
  ];

  return {
    config: {
      telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER_TG], pollTimeoutSeconds: 1 },
      discord: { token: dc.token, restApi: dc.restApi, owners: [DC_OWNER.id] },
      slack: { botToken: sl.botToken, appToken: sl.appToken, apiUrl: sl.apiUrl, owners: [SL_OWNER] },
      // Access comes from the config; the channel itself is built on the fake socket.
      whatsapp: { enabled: false, owners: ['4915551112222'] },
    },
    extra: [waChannel],
    async ready() {
      await dc.ready();
      await sl.connected();
      const sock = wa.socket();
      await new Promise((r) => setImmediate(r));
      sock.ev.emit('creds.update', { me: WA_ME });
      sock.ev.emit('connection.update', { connection: 'open' });
      return chats;
    },
    async close() {
      await Promise.all([tg.close(), dc.close(), sl.close(), wa.close()]);
    },
  };
}
