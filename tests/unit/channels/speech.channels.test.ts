/**
 * A reply spoken, sent by each chat channel on its real library against the fake platform API: an
 * audio file the fake text-to-speech command wrote goes out as a Telegram voice note (sendVoice; WAV
 * as sendAudio), a WhatsApp push-to-talk note (Baileys' sendMessage is a recorder, as in every
 * WhatsApp test: the media upload to WhatsApp is not exercised), a Discord message with the file
 * attached, and a Slack file through the external upload's three steps. Each fake receives the bytes.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Channel, OutboundVoice } from '../../../src/channels/channel.js';
import { DiscordChannel } from '../../../src/channels/discord/channel.js';
import { SlackChannel } from '../../../src/channels/slack/channel.js';
import { synthesize } from '../../../src/channels/speech.js';
import { TelegramChannel } from '../../../src/channels/telegram/channel.js';
import { WhatsAppChannel } from '../../../src/channels/whatsapp/channel.js';
import {
  discordSchema,
  slackSchema,
  telegramSchema,
  ttsSchema,
  whatsappSchema,
} from '../../../src/config/channels-schema.js';
import { silentLogger } from '../../../src/ops/logger.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { startFakeDiscord } from '../../support/fake-discord.js';
import { startFakeSlack } from '../../support/fake-slack.js';
import { startFakeTelegram } from '../../support/fake-telegram.js';
import { startFakeWhatsApp } from '../../support/fake-whatsapp.js';
import { recordingSink } from '../../support/recording-sink.js';
import { fakeTts, spokenText } from '../../support/tts-rig.js';

const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

/** An audio file as the fake command writes it, saying `text`. */
async function audio(text: string, mime = 'audio/ogg', ext = 'ogg'): Promise<OutboundVoice> {
  const file = path.join(tempDir('voice-out'), `o1.${ext}`);
  await synthesize(text, ttsSchema.parse(fakeTts()), file);
  return { outboxId: 'o1', file, mime, name: `reply.${ext}` };
}

const voiceOf = (c: Channel) => {
  const v = c.capabilities?.voice;
  if (!v) throw new Error(`${c.name} has no voice notes`);
  return v;
};

describe('voice notes out, per channel', () => {
  it('Telegram: sendVoice for Ogg Opus (in its topic, answering the message), sendAudio for WAV', async () => {
    const fake = await startFakeTelegram();
    stops.push(() => fake.close());
    const config = telegramSchema.parse({
      token: fake.token,
      apiRoot: fake.apiRoot,
      owners: [1],
      pollTimeoutSeconds: 1,
    });
    const channel = new TelegramChannel({ config, dataDir: tempDir('tg'), logger: silentLogger() });
    await channel.start(recordingSink());
    stops.push(() => channel.stop());
    await voiceOf(channel).sendVoice(
      { conversationKey: '-100123:7' },
      { ...(await audio('hi there')), replyTo: '-100123:42' },
    );
    const [voice] = fake.callsOf('sendVoice');
    expect(voice!.body).toMatchObject({ chat_id: '-100123', message_thread_id: '7' });
    expect(voice!.body.reply_parameters).toMatchObject({ message_id: 42, allow_sending_without_reply: true });
    expect(spokenText(voice!.files!.voice!.data)).toBe('hi there');
    await voiceOf(channel).sendVoice({ conversationKey: '55' }, await audio('as wav', 'audio/wav', 'wav'));
    const [wav] = fake.callsOf('sendAudio');
    expect(spokenText(wav!.files!.audio!.data)).toBe('as wav');
    expect(fake.callsOf('sendVoice')).toHaveLength(1);
  });

  it('WhatsApp: a push-to-talk note for Ogg Opus, an audio message otherwise', async () => {
    const fake = await startFakeWhatsApp();
    stops.push(() => fake.close());
    const config = whatsappSchema.parse({ printQr: false, webSocketUrl: fake.webSocketUrl });
    const channel = new WhatsAppChannel({
      config,
      dataDir: tempDir('wa'),
      logger: silentLogger(),
      socketFactory: (c) => fake.factory(c),
    });
    await channel.start(recordingSink());
    stops.push(() => channel.stop());
    const sock = fake.socket();
    await new Promise((r) => setImmediate(r));
    sock.ev.emit('creds.update', { me: { id: '4915550000001:3@s.whatsapp.net', name: 'Rudder' } });
    sock.ev.emit('connection.update', { connection: 'open' });
    const jid = '4915551112222@s.whatsapp.net';
    await voiceOf(channel).sendVoice({ conversationKey: jid }, await audio('hallo'));
    await voiceOf(channel).sendVoice({ conversationKey: jid }, await audio('mp3 here', 'audio/mpeg', 'mp3'));
    const [ptt, mp3] = fake.sent.filter((s) => s.content.audio);
    expect(ptt).toMatchObject({ jid, content: { mimetype: 'audio/ogg; codecs=opus', ptt: true } });
    expect(spokenText(ptt!.content.audio)).toBe('hallo');
    expect(mp3).toMatchObject({ content: { mimetype: 'audio/mpeg', ptt: false } });
  });

  it('Discord: a message with the audio file attached, mentions off', async () => {
    const fake = await startFakeDiscord({ guilds: [] });
    stops.push(() => fake.close());
    const config = discordSchema.parse({ token: fake.token, restApi: fake.restApi, owners: [] });
    const channel = new DiscordChannel({ config, dataDir: tempDir('dc'), logger: silentLogger() });
    await channel.start(recordingSink());
    stops.push(() => channel.stop());
    await voiceOf(channel).sendVoice(
      { conversationKey: '600000000000000001' },
      { ...(await audio('discord says hi')), replyTo: '1001@600000000000000001' },
    );
    const [call] = fake.callsTo('POST', /^\/channels\/600000000000000001\/messages$/);
    expect(call!.body).toMatchObject({
      allowed_mentions: { parse: [] },
      message_reference: { message_id: '1001' },
    });
    expect(call!.files).toHaveLength(1);
    expect(call!.files![0]).toMatchObject({ name: 'reply.ogg' });
    expect(spokenText(call!.files![0]!.data)).toBe('discord says hi');
  });

  it('Slack: the file uploaded and shared in the thread, through the external upload', async () => {
    const fake = await startFakeSlack();
    stops.push(() => fake.close());
    const config = slackSchema.parse({ botToken: fake.botToken, appToken: fake.appToken, apiUrl: fake.apiUrl });
    const channel = new SlackChannel({ config, dataDir: tempDir('sl'), logger: silentLogger() });
    await channel.start(recordingSink());
    await fake.connected();
    stops.push(() => channel.stop());
    await voiceOf(channel).sendVoice({ conversationKey: 'C0GEN:1700000100.000100' }, await audio('slack says hi'));
    await waitUntil(() => [...fake.uploads.values()].some((u) => u.shared));
    const [up] = [...fake.uploads.values()];
    expect(up).toMatchObject({ filename: 'reply.ogg', shared: { channel: 'C0GEN', threadTs: '1700000100.000100' } });
    expect(up!.length).toBe(up!.data!.length);
    expect(spokenText(up!.data!)).toBe('slack says hi');
    expect(fake.callsOf('files.completeUploadExternal')).toHaveLength(1);
  });
});
