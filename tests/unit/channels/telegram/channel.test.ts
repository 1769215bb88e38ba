import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TelegramChannel } from '../../../../src/channels/telegram/channel.js';
import { transcribe, VOICE_NOT_SET_UP } from '../../../../src/channels/voice.js';
import { telegramSchema } from '../../../../src/config/channels-schema.js';
import { isRudderError } from '../../../../src/errors.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { type FakeTelegram, startFakeTelegram } from '../../../support/fake-telegram.js';
import { recordingSink } from '../../../support/recording-sink.js';

const OWNER = 111;
/** A short typing refresh, so a test sees several without waiting seconds. */
const TYPING_MS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port nothing listens on right now, for the webhook server. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}
const STRANGER = 222;

function privateText(from: number, messageId: number, text: string, extra: Record<string, unknown> = {}) {
  return {
    message: {
      message_id: messageId,
      date: 1_700_000_000,
      chat: { id: from, type: 'private', first_name: 'Ann' },
      from: { id: from, is_bot: false, first_name: 'Ann', last_name: 'Lee' },
      text,
      ...extra,
    },
  };
}

describe('telegram channel on grammY against a fake Bot API', () => {
  let fake: FakeTelegram;
  let dataDir: string;
  let channel: TelegramChannel | undefined;

  beforeEach(async () => {
    fake = await startFakeTelegram();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-tg-'));
  });

  afterEach(async () => {
    await channel?.stop();
    channel = undefined;
    await fake.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const make = (over: Record<string, unknown> = {}) => {
    const config = telegramSchema.parse({
      token: fake.token,
      apiRoot: fake.apiRoot,
      owners: [OWNER],
      pollTimeoutSeconds: 1,
      ...over,
    });
    channel = new TelegramChannel({ config, dataDir, logger: silentLogger(), typingIntervalMs: TYPING_MS });
    return channel;
  };

  it('normalises text, a forum topic, a reply with its quote, an edit, a photo and a voice note', async () => {
    const sink = recordingSink();
    await make().start(sink);
    fake.addFile('photo-big', Buffer.from('PNGDATA'), 'photos/file_1.jpg');
    fake.addFile('voice-1', Buffer.from('OGGDATA-voice'), 'voice/file_2.oga');

    fake.pushUpdate(privateText(OWNER, 1, 'hello there'));
    // A message in forum topic 77 of a supergroup, mentioning the bot.
    fake.pushUpdate({
      message: {
        message_id: 2,
        date: 1_700_000_001,
        message_thread_id: 77,
        is_topic_message: true,
        chat: { id: -100500, type: 'supergroup', title: 'Team', is_forum: true },
        from: { id: OWNER, is_bot: false, first_name: 'Ann' },
        text: '@rudder_test_bot check the build',
        entities: [{ type: 'mention', offset: 0, length: 16 }],
        reply_to_message: {
          message_id: 77,
          date: 1,
          chat: { id: -100500, type: 'supergroup', title: 'Team' },
          forum_topic_created: { name: 'CI', icon_color: 1 },
        },
      },
    });
    // A reply to the bot's own message in a plain group: addressed, with the quoted text.
    fake.pushUpdate({
      message: {
        message_id: 3,
        date: 1_700_000_002,
        chat: { id: -42, type: 'group', title: 'Pals' },
        from: { id: OWNER, is_bot: false, first_name: 'Ann' },
        text: 'yes, do that',
        reply_to_message: {
          message_id: 9,
          date: 1,
          chat: { id: -42, type: 'group', title: 'Pals' },
          from: { ...fake.bot, is_bot: true },
          text: 'Shall I deploy?',
        },
      },
    });
    fake.pushUpdate({
      edited_message: { ...privateText(OWNER, 1, 'hello there, edited').message, edit_date: 1_700_000_100 },
    });
    fake.pushUpdate({
      message: {
        message_id: 4,
        date: 1_700_000_003,
        chat: { id: OWNER, type: 'private', first_name: 'Ann' },
        from: { id: OWNER, is_bot: false, first_name: 'Ann' },
        caption: 'what is in this picture?',
        photo: [
          { file_id: 'photo-small', file_unique_id: 's', width: 90, height: 90 },
          { file_id: 'photo-big', file_unique_id: 'b', width: 1280, height: 960, file_size: 7 },
        ],
      },
    });
    fake.pushUpdate({
      message: {
        message_id: 5,
        date: 1_700_000_004,
        chat: { id: OWNER, type: 'private', first_name: 'Ann' },
        from: { id: OWNER, is_bot: false, first_name: 'Ann' },
        voice: { file_id: 'voice-1', file_unique_id: 'v', duration: 2, mime_type: 'audio/ogg', file_size: 13 },
      },
    });

    const got = await sink.waitForCount(6);
    const [text, topic, reply, edit, photo, voice] = got;
    expect(text).toMatchObject({
      channel: 'telegram',
      platformMessageId: `${OWNER}:1`,
      conversationKey: String(OWNER),
      chatType: 'direct',
      text: 'hello there',
      sender: { id: String(OWNER), name: 'Ann Lee' },
    });
    expect(topic).toMatchObject({
      conversationKey: '-100500:77',
      chatType: 'group',
      addressed: true,
      text: 'check the build',
    });
    expect(topic!.quoted).toBeUndefined();
    expect(reply).toMatchObject({
      conversationKey: '-42',
      chatType: 'group',
      addressed: true,
      quoted: { text: 'Shall I deploy?', author: 'Rudder' },
    });
    expect(edit).toMatchObject({ editOf: `${OWNER}:1`, text: 'hello there, edited' });
    expect(edit!.platformMessageId).not.toBe(`${OWNER}:1`);
    expect(photo!.text).toBe('what is in this picture?');
    expect(photo!.attachments).toHaveLength(1);
    const img = photo!.attachments![0]!;
    expect(img.kind).toBe('image');
    expect(img.path.startsWith(path.join(dataDir, 'attachments', 'telegram'))).toBe(true);
    expect(fs.readFileSync(img.path, 'utf8')).toBe('PNGDATA');
    expect(voice!.attachments![0]).toMatchObject({ kind: 'voice', mime: 'audio/ogg' });
    expect(fs.readFileSync(voice!.attachments![0]!.path, 'utf8')).toBe('OGGDATA-voice');
    // With no speech-to-text configured, the voice note gets the "not set up" answer, never silence.
    const err = await transcribe(voice!.attachments![0]!.path, undefined).catch((e: unknown) => e);
    expect(isRudderError(err)).toBe(true);
    expect((err as Error).message).toContain(VOICE_NOT_SET_UP);
  });

  it('does not move the update offset past a message until the sink committed it', async () => {
    const log = fake.log;
    const sink = recordingSink(log);
    sink.failNext(2);
    await make().start(sink);
    const id = fake.pushUpdate(privateText(OWNER, 10, 'must not be lost'));
    await sink.waitForCount(1);
    await fake.waitFor((c) => c.method === 'getUpdates' && Number(c.body.offset) === id + 1);
    const committed = log.indexOf(`accepted ${OWNER}:10`);
    const advanced = log.indexOf(`getUpdates offset=${id + 1}`);
    expect(log.filter((l) => l.startsWith('accept-failed'))).toHaveLength(2);
    expect(committed).toBeGreaterThanOrEqual(0);
    expect(advanced).toBeGreaterThan(committed);
  });

  it('splits a long reply at 4096 characters, closing and reopening a code block across the cut', async () => {
    await make().start(recordingSink());
    const code = Array.from({ length: 300 }, (_, i) => `const line${i} = ${i}; // <tag> & more`).join('\n');
    const text = `Here is the file:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.`;
    await channel!.send({ outboxId: 'o1', text, replyTo: `${OWNER}:1` }, { conversationKey: String(OWNER) });
    const sends = fake.callsOf('sendMessage');
    expect(sends.length).toBeGreaterThan(2);
    const visible = (h: string) =>
      h
        .replace(/<[^>]+>/g, '')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&');
    for (const s of sends) {
      expect(visible(s.body.text).length).toBeLessThanOrEqual(4096);
      expect(s.body.parse_mode).toBe('HTML');
    }
    expect(sends[0]!.body.text.endsWith('</code></pre>')).toBe(true);
    expect(sends[1]!.body.text.startsWith('<pre><code class="language-ts">')).toBe(true);
    expect(sends[0]!.body.reply_parameters).toMatchObject({ message_id: 1 });
    expect(sends[1]!.body.reply_parameters).toBeUndefined();
    // Every code line arrives exactly once and in order.
    const all = sends.map((s) => visible(s.body.text)).join('\n');
    const lines = all.split('\n').filter((l) => l.startsWith('const line'));
    expect(lines).toEqual(code.split('\n'));
    expect(all.trim().endsWith('Done.')).toBe(true);
  });

  it('honours a 429 retry_after and keeps the parts in order', async () => {
    await make().start(recordingSink());
    let refused = 0;
    fake.script('sendMessage', (body) => {
      if (String(body.text).startsWith('PART-2') && refused === 0) {
        refused++;
        return {
          status: 429,
          body: {
            ok: false,
            error_code: 429,
            description: 'Too Many Requests: retry after 1',
            parameters: { retry_after: 1 },
          },
        };
      }
      return undefined;
    });
    const text = ['PART-1 ' + 'a'.repeat(4000), 'PART-2 ' + 'b'.repeat(4000), 'PART-3 ' + 'c'.repeat(4000)].join(
      '\n\n',
    );
    await channel!.send({ outboxId: 'o2', text }, { conversationKey: String(OWNER) });
    const sends = fake.callsOf('sendMessage');
    expect(sends.map((s) => String(s.body.text).slice(0, 6))).toEqual(['PART-1', 'PART-2', 'PART-2', 'PART-3']);
    expect(sends[2]!.at - sends[1]!.at).toBeGreaterThanOrEqual(950);
  });

  it(
    'keeps a reply owed (CHANNEL_RATE_LIMITED) when the wait is too long, and resumes at the unsent ' + 'part',
    async () => {
      await make().start(recordingSink());
      let block = true;
      fake.script('sendMessage', (body) =>
        block && String(body.text).startsWith('PART-2')
          ? {
              status: 429,
              body: {
                ok: false,
                error_code: 429,
                description: 'Too Many Requests: retry after 300',
                parameters: { retry_after: 300 },
              },
            }
          : undefined,
      );
      const text = ['PART-1 ' + 'a'.repeat(4000), 'PART-2 ' + 'b'.repeat(4000)].join('\n\n');
      const err = await channel!
        .send({ outboxId: 'o3', text }, { conversationKey: String(OWNER) })
        .catch((e: unknown) => e);
      expect(isRudderError(err, 'CHANNEL_RATE_LIMITED')).toBe(true);
      expect((err as { context: { retryAfterMs: number } }).context.retryAfterMs).toBe(300_000);
      block = false;
      // Sent again before retry_after passed, it does not reach Telegram: the chat is held.
      const held = await channel!
        .send({ outboxId: 'o3', text }, { conversationKey: String(OWNER) })
        .catch((e: unknown) => e);
      expect(isRudderError(held, 'CHANNEL_RATE_LIMITED')).toBe(true);
      expect((held as { context: { retryAfterMs: number } }).context.retryAfterMs).toBeGreaterThan(290_000);
      expect(fake.callsOf('sendMessage')).toHaveLength(2);
      // Five minutes later (the clock moved on; timers stay real) it resumes at the unsent part.
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() + 301_000);
        await channel!.send({ outboxId: 'o3', text }, { conversationKey: String(OWNER) });
      } finally {
        vi.useRealTimers();
      }
      const delivered = fake.callsOf('sendMessage').map((s) => String(s.body.text).slice(0, 6));
      expect(delivered).toEqual(['PART-1', 'PART-2', 'PART-2']);
    },
  );

  it('resends a part as plain text when Telegram cannot parse its HTML', async () => {
    await make().start(recordingSink());
    fake.script('sendMessage', (body) =>
      body.parse_mode === 'HTML'
        ? {
            status: 400,
            body: {
              ok: false,
              error_code: 400,
              description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0',
            },
          }
        : undefined,
    );
    await channel!.send({ outboxId: 'o4', text: 'use **a < b** here' }, { conversationKey: String(OWNER) });
    const sends = fake.callsOf('sendMessage');
    expect(sends).toHaveLength(2);
    expect(sends[1]!.body.parse_mode).toBeUndefined();
    expect(sends[1]!.body.text).toBe('use a < b here');
  });

  it('acknowledges: 👀 as a reaction, steering as the text fallback quoting the message', async () => {
    await make().start(recordingSink());
    const to = { conversationKey: String(OWNER), platformMessageId: `${OWNER}:21` };
    await channel!.ack(to, 'received');
    const reaction = fake.callsOf('setMessageReaction')[0]!;
    expect(reaction.body).toMatchObject({
      chat_id: String(OWNER),
      message_id: 21,
      reaction: [{ type: 'emoji', emoji: '👀' }],
    });
    await channel!.ack(to, 'steered', 'please also update the changelog and the docs for it');
    const steer = fake.callsOf('sendMessage').at(-1)!;
    expect(steer.body.text).toBe('➡️ got it: please also update the changelog and the…');
    expect(steer.body.reply_parameters).toMatchObject({ message_id: 21 });
    // A failing reaction is not an error for the gateway.
    fake.script('setMessageReaction', () => ({
      status: 400,
      body: { ok: false, error_code: 400, description: 'Bad Request: REACTION_INVALID' },
    }));
    await expect(channel!.ack(to, 'received')).resolves.toBeUndefined();
  });

  it('keeps typing alive in the forum topic while a turn runs, and stops when told', async () => {
    await make().start(recordingSink());
    const actions = () => fake.callsOf('sendChatAction');
    channel!.typing({ conversationKey: '-100500:77' }, true);
    const t = await fake.waitFor((c) => c.method === 'sendChatAction');
    expect(t.body).toMatchObject({ chat_id: '-100500', action: 'typing', message_thread_id: 77 });
    await vi.waitFor(() => expect(actions().length).toBeGreaterThanOrEqual(3));
    channel!.typing({ conversationKey: '-100500:77' }, false);
    const atOff = actions().length;
    await sleep(TYPING_MS * 10);
    // At most one refresh was already on its way when typing was turned off.
    expect(actions().length).toBeLessThanOrEqual(atOff + 1);
    for (const a of actions()) expect(a.body).toMatchObject({ chat_id: '-100500', message_thread_id: 77 });
  });

  it('after stop, typing is a no-op and a send fails as not started', async () => {
    await make().start(recordingSink());
    await channel!.stop();
    channel!.typing({ conversationKey: String(OWNER) }, true);
    await sleep(TYPING_MS * 5);
    expect(fake.callsOf('sendChatAction')).toHaveLength(0);
    const err = await channel!
      .send({ outboxId: 'late', text: 'too late' }, { conversationKey: String(OWNER) })
      .catch((e: unknown) => e);
    expect(isRudderError(err, 'CHANNEL_SEND_FAILED')).toBe(true);
    expect((err as Error).message).toContain('not started');
    await expect(
      channel!.ack({ conversationKey: String(OWNER), platformMessageId: `${OWNER}:1` }, 'queued'),
    ).rejects.toThrow('not started');
    expect(fake.callsOf('sendMessage')).toHaveLength(0);
  });

  it(
    'copies a file from a local Bot API server only when it fits, measuring it when the update gave no ' + 'size',
    async () => {
      const big = path.join(dataDir, 'server-disk', 'doc.bin');
      fs.mkdirSync(path.dirname(big), { recursive: true });
      fs.writeFileSync(big, Buffer.alloc(100, 1));
      fake.addFile('local-doc', Buffer.alloc(0), big);
      const sink = recordingSink();
      await make({ maxAttachmentMb: 50 / (1024 * 1024) }).start(sink);
      fake.pushUpdate({
        message: {
          message_id: 40,
          date: 1_700_000_000,
          chat: { id: OWNER, type: 'private', first_name: 'Ann' },
          from: { id: OWNER, is_bot: false, first_name: 'Ann' },
          caption: 'the dump',
          document: { file_id: 'local-doc', file_unique_id: 'd', file_name: 'doc.bin' },
        },
      });
      const [msg] = await sink.waitForCount(1);
      expect(msg!.attachments).toBeUndefined();
      expect(msg!.text).toBe(
        'the dump\n[attachment "doc.bin" could not be saved: it is 100 bytes, over the 50 byte limit]',
      );
      expect(fs.existsSync(path.join(dataDir, 'attachments'))).toBe(false);
    },
  );

  it(
    "hands a stranger's message to the sink like any other (access is decided by the gateway), and replies " +
      'in their chat',
    async () => {
      const sink = recordingSink();
      await make().start(sink);
      fake.pushUpdate(privateText(STRANGER, 1, 'let me in'));
      const [msg] = await sink.waitForCount(1);
      expect(msg).toMatchObject({
        conversationKey: String(STRANGER),
        chatType: 'direct',
        sender: { id: String(STRANGER) },
        text: 'let me in',
      });
      await channel!.send(
        { outboxId: 'refusal-1', text: 'This Rudder gateway is private.' },
        { conversationKey: msg!.conversationKey },
      );
      const reply = await fake.waitFor((c) => c.method === 'sendMessage');
      expect(reply.body.chat_id).toBe(String(STRANGER));
      expect(reply.body.text).toBe('This Rudder gateway is private.');
    },
  );

  it('fails start with CHANNEL_CONFIG naming the key for a missing or rejected token', async () => {
    const missing = new TelegramChannel({
      config: telegramSchema.parse({ apiRoot: fake.apiRoot }),
      dataDir,
      logger: silentLogger(),
    });
    const e1 = await missing.start(recordingSink()).catch((e: unknown) => e);
    expect(isRudderError(e1, 'CHANNEL_CONFIG')).toBe(true);
    expect((e1 as Error).message).toContain('channels.telegram.token');
    expect(missing.status().state).toBe('error');

    const wrong = new TelegramChannel({
      config: telegramSchema.parse({ token: '999:WrongTokenWrongTokenWrongToken', apiRoot: fake.apiRoot }),
      dataDir,
      logger: silentLogger(),
    });
    const e2 = await wrong.start(recordingSink()).catch((e: unknown) => e);
    expect(isRudderError(e2, 'CHANNEL_CONFIG')).toBe(true);
    expect((e2 as Error).message).toContain('rejected');
    expect((e2 as Error).message).not.toContain('WrongToken');
    expect(await wrong.probe()).toMatchObject({ ok: false });
  });

  it('takes updates through a webhook, answering 200 only after the commit and 401 without the secret', async () => {
    const sink = recordingSink();
    const port = await freePort();
    await make({
      mode: 'webhook',
      webhook: { url: 'https://example.test/tg', port, path: '/tg', secretToken: 'sekrit_1' },
    }).start(sink);
    expect(fake.callsOf('setWebhook')[0]!.body).toMatchObject({
      url: 'https://example.test/tg',
      secret_token: 'sekrit_1',
    });
    const post = (secret: string | undefined, body: unknown) =>
      fetch(`http://127.0.0.1:${port}/tg`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(secret ? { 'x-telegram-bot-api-secret-token': secret } : {}),
        },
        body: JSON.stringify(body),
      });
    const bad = await post('nope', { update_id: 1, ...privateText(OWNER, 30, 'forged') });
    expect(bad.status).toBe(401);
    sink.failNext(1);
    const failed = await post('sekrit_1', { update_id: 2, ...privateText(OWNER, 31, 'real') });
    expect(failed.status).toBe(500);
    const good = await post('sekrit_1', { update_id: 2, ...privateText(OWNER, 31, 'real') });
    expect(good.status).toBe(200);
    expect(sink.messages.map((m) => m.text)).toEqual(['real']);
  });

  it(
    'without webhook.secretToken, makes a secret, registers it with setWebhook, and refuses updates without ' + 'it',
    async () => {
      const sink = recordingSink();
      const port = await freePort();
      await make({ mode: 'webhook', webhook: { url: 'https://example.test/tg', port, path: '/tg' } }).start(sink);
      const secret = String(fake.callsOf('setWebhook')[0]!.body.secret_token ?? '');
      expect(secret).toMatch(/^[A-Za-z0-9_-]{32,256}$/);
      const post = (headers: Record<string, string>, body: unknown) =>
        fetch(`http://127.0.0.1:${port}/tg`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      // Forged updates that claim to come from the owner.
      for (const headers of [
        {} as Record<string, string>,
        { 'x-telegram-bot-api-secret-token': '' },
        { 'x-telegram-bot-api-secret-token': 'guess' },
        { 'x-telegram-bot-api-secret-token': `${secret}x` },
      ]) {
        expect((await post(headers, { update_id: 7, ...privateText(OWNER, 40, 'forged') })).status).toBe(401);
      }
      expect(
        (
          await post(
            { 'x-telegram-bot-api-secret-token': secret },
            { update_id: 8, ...privateText(OWNER, 41, 'genuine') },
          )
        ).status,
      ).toBe(200);
      expect(sink.messages.map((m) => m.text)).toEqual(['genuine']);
      // A restart makes a new one and registers it again.
      await channel!.stop();
      const again = make({ mode: 'webhook', webhook: { url: 'https://example.test/tg', port, path: '/tg' } });
      await again.start(sink);
      const next = String(fake.callsOf('setWebhook')[1]!.body.secret_token);
      expect(next).not.toBe(secret);
      expect(
        (
          await post(
            { 'x-telegram-bot-api-secret-token': secret },
            { update_id: 9, ...privateText(OWNER, 42, 'old secret') },
          )
        ).status,
      ).toBe(401);
    },
  );
});
