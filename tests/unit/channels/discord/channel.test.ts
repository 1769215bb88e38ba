import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DiscordChannel } from '../../../../src/channels/discord/channel.js';
import { discordSchema } from '../../../../src/config/channels-schema.js';
import { isRudderError } from '../../../../src/errors.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { type FakeDiscord, startFakeDiscord } from '../../../support/fake-discord.js';
import { recordingSink } from '../../../support/recording-sink.js';

const GUILD = '500000000000000001';
const GENERAL = '600000000000000001';
const THREAD = '700000000000000001';
const DM = '800000000000000001';
const ann = { id: '420000000000000001', username: 'ann', discriminator: '0', global_name: 'Ann', avatar: null };
/** A short typing refresh, so a test sees several without waiting seconds. */
const TYPING_MS = 20;
const base = () => ({
  tts: false,
  mention_everyone: false,
  mentions: [] as unknown[],
  mention_roles: [],
  attachments: [] as unknown[],
  embeds: [],
  pinned: false,
  type: 0,
  timestamp: new Date().toISOString(),
  edited_timestamp: null,
  flags: 0,
});

describe('discord channel on discord.js against a fake REST API and gateway', () => {
  let fake: FakeDiscord;
  let dataDir: string;
  let channel: DiscordChannel | undefined;

  beforeEach(async () => {
    fake = await startFakeDiscord({
      guilds: [
        {
          id: GUILD,
          channels: [{ id: GENERAL, name: 'general' }],
          threads: [{ id: THREAD, name: 'build', parent_id: GENERAL }],
        },
      ],
    });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-dc-'));
  });

  afterEach(async () => {
    await channel?.stop();
    channel = undefined;
    await fake.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (sink = recordingSink()) => {
    const config = discordSchema.parse({ token: fake.token, restApi: fake.restApi, owners: [ann.id] });
    channel = new DiscordChannel({ config, dataDir, logger: silentLogger(), typingIntervalMs: TYPING_MS });
    await channel.start(sink);
    return sink;
  };

  it(
    'normalises a mention, a thread, a reply with its quote, an attachment, a voice message, a DM and an ' + 'edit',
    async () => {
      const sink = await start();
      const botUser = { ...fake.bot };
      const png = fake.addFile('shot.png', 'PNG-BYTES');
      const ogg = fake.addFile('voice-message.ogg', 'OGG-BYTES');
      fake.dispatch('MESSAGE_CREATE', {
        ...base(),
        id: '1001',
        channel_id: GENERAL,
        guild_id: GUILD,
        author: ann,
        content: `<@${fake.bot.id}> run the tests`,
        mentions: [botUser],
      });
      fake.dispatch('MESSAGE_CREATE', {
        ...base(),
        id: '1002',
        channel_id: THREAD,
        guild_id: GUILD,
        author: ann,
        content: `<@${fake.bot.id}> in the thread`,
        mentions: [botUser],
      });
      fake.dispatch('MESSAGE_CREATE', {
        ...base(),
        id: '1003',
        channel_id: GENERAL,
        guild_id: GUILD,
        author: ann,
        content: 'yes please',
        type: 19,
        message_reference: { message_id: '999', channel_id: GENERAL, guild_id: GUILD },
        referenced_message: {
          ...base(),
          id: '999',
          channel_id: GENERAL,
          guild_id: GUILD,
          author: botUser,
          content: 'Shall I deploy?',
        },
        mentions: [botUser],
      });
      fake.dispatch('MESSAGE_CREATE', {
        ...base(),
        id: '1004',
        channel_id: DM,
        channel_type: 1,
        author: ann,
        content: 'see screenshot',
        attachments: [{ id: 'a1', filename: 'shot.png', size: 9, url: png, proxy_url: png, content_type: 'image/png' }],
      });
      fake.dispatch('MESSAGE_CREATE', {
        ...base(),
        id: '1005',
        channel_id: DM,
        channel_type: 1,
        author: ann,
        content: '',
        flags: 8192,
        attachments: [
          {
            id: 'a2',
            filename: 'voice-message.ogg',
            size: 9,
            url: ogg,
            proxy_url: ogg,
            content_type: 'audio/ogg',
            duration_secs: 2,
          },
        ],
      });
      fake.dispatch('MESSAGE_UPDATE', {
        ...base(),
        id: '1001',
        channel_id: GENERAL,
        guild_id: GUILD,
        author: ann,
        content: `<@${fake.bot.id}> run the unit tests`,
        mentions: [botUser],
        edited_timestamp: new Date(Date.now() + 1000).toISOString(),
      });
      // Someone talking in the channel without addressing the bot.
      fake.dispatch('MESSAGE_CREATE', {
        ...base(),
        id: '1006',
        channel_id: GENERAL,
        guild_id: GUILD,
        author: ann,
        content: 'lunch?',
      });

      const [mention, thread, reply, dm, voice, edit, chatter] = await sink.waitForCount(7);
      expect(mention).toMatchObject({
        channel: 'discord',
        platformMessageId: '1001',
        conversationKey: GENERAL,
        chatType: 'group',
        addressed: true,
        text: 'run the tests',
        sender: { id: ann.id, name: 'Ann' },
      });
      expect(thread).toMatchObject({
        conversationKey: THREAD,
        parentKey: GENERAL,
        chatType: 'group',
        addressed: true,
        text: 'in the thread',
      });
      expect(mention!.parentKey).toBeUndefined();
      expect(reply).toMatchObject({ addressed: true, quoted: { text: 'Shall I deploy?', author: 'rudder-test' } });
      expect(dm).toMatchObject({ conversationKey: DM, chatType: 'direct', text: 'see screenshot' });
      expect(dm!.attachments![0]).toMatchObject({ kind: 'image', name: 'shot.png', mime: 'image/png' });
      expect(fs.readFileSync(dm!.attachments![0]!.path, 'utf8')).toBe('PNG-BYTES');
      expect(dm!.attachments![0]!.path.startsWith(path.join(dataDir, 'attachments', 'discord'))).toBe(true);
      expect(voice!.attachments![0]).toMatchObject({ kind: 'voice', mime: 'audio/ogg' });
      expect(edit).toMatchObject({ editOf: '1001', text: 'run the unit tests' });
      expect(edit!.platformMessageId).not.toBe('1001');
      expect(chatter).toMatchObject({ chatType: 'group', addressed: false });
    },
  );

  it(
    'downloads nothing for a sender the sink does not admit, and still hands the message over for its ' + 'refusal',
    async () => {
      const sink = recordingSink();
      sink.refuse((m) => m.sender.id === '430000000000000009');
      await start(sink);
      const png = fake.addFile('shot.png', 'PNG-BYTES');
      const attachment = {
        id: 'a1',
        filename: 'shot.png',
        size: 9,
        url: png,
        proxy_url: png,
        content_type: 'image/png',
      };
      const bob = { ...ann, id: '430000000000000009', username: 'bob', global_name: 'Bob' };
      fake.dispatch('MESSAGE_CREATE', {
        ...base(),
        id: '1201',
        channel_id: DM,
        channel_type: 1,
        author: bob,
        content: 'stranger file',
        attachments: [attachment],
      });
      fake.dispatch('MESSAGE_CREATE', {
        ...base(),
        id: '1202',
        channel_id: DM,
        channel_type: 1,
        author: ann,
        content: 'owner file',
        attachments: [attachment],
      });
      const [stranger, owner] = await sink.waitForCount(2);
      expect(sink.asked.map((m) => m.platformMessageId)).toEqual(['1201', '1202']);
      expect(stranger!.attachments).toBeUndefined();
      expect(stranger!.text).toBe('stranger file');
      expect(fs.readFileSync(owner!.attachments![0]!.path, 'utf8')).toBe('PNG-BYTES');
      const saved = fs
        .readdirSync(path.join(dataDir, 'attachments'), { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => d.name);
      expect(saved).toEqual(['1202-shot.png']);
    },
  );

  it('forwards only text edits: link previews, pins and embeds on an unchanged text are not edits', async () => {
    const sink = await start();
    const botUser = { ...fake.bot };
    const content = `<@${fake.bot.id}> read https://example.com/post`;
    const msg = {
      ...base(),
      id: '3001',
      channel_id: GENERAL,
      guild_id: GUILD,
      author: ann,
      content,
      mentions: [botUser],
    };
    const embed = { type: 'link', url: 'https://example.com/post', title: 'A post' };
    const editedAt = new Date(Date.now() + 1000).toISOString();
    fake.dispatch('MESSAGE_CREATE', msg);
    // Discord adds the link preview, then the message is pinned: same text, no edit time.
    fake.dispatch('MESSAGE_UPDATE', { ...msg, embeds: [embed] });
    fake.dispatch('MESSAGE_UPDATE', { ...msg, embeds: [embed], pinned: true });
    fake.dispatch('MESSAGE_UPDATE', { ...msg, content: `${content} now`, edited_timestamp: editedAt });
    // A preview refreshed after that edit: the edit time stays, the text is unchanged.
    fake.dispatch('MESSAGE_UPDATE', {
      ...msg,
      content: `${content} now`,
      edited_timestamp: editedAt,
      embeds: [embed, embed],
    });
    fake.dispatch('MESSAGE_CREATE', {
      ...base(),
      id: '3002',
      channel_id: GENERAL,
      guild_id: GUILD,
      author: ann,
      content: `<@${fake.bot.id}> done`,
      mentions: [botUser],
    });
    await vi.waitFor(() => expect(sink.messages.at(-1)?.platformMessageId).toBe('3002'));
    expect(sink.messages.map((m) => [m.platformMessageId.split('@')[0], m.editOf, m.text])).toEqual([
      ['3001', undefined, 'read https://example.com/post'],
      ['3001', '3001', 'read https://example.com/post now'],
      ['3002', undefined, 'done'],
    ]);
  });

  it('splits at 2000 characters, reopening a code block with its language, mentions disabled', async () => {
    await start();
    const code = Array.from({ length: 120 }, (_, i) => `print("line ${i}")  # padding padding`).join('\n');
    await channel!.send(
      { outboxId: 'o1', text: `Script:\n\`\`\`python\n${code}\n\`\`\``, replyTo: '1001' },
      { conversationKey: GENERAL },
    );
    const posts = fake.callsTo('POST', /^\/channels\/\d+\/messages$/);
    expect(posts.length).toBeGreaterThan(2);
    for (const p of posts) {
      expect(p.body.content.length).toBeLessThanOrEqual(2000);
      expect(p.body.allowed_mentions).toEqual({ parse: [], replied_user: false });
      // Every part is a balanced code block.
      expect((p.body.content.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(posts[0]!.body.message_reference).toMatchObject({ message_id: '1001' });
    expect(posts[1]!.body.content.startsWith('```python\n')).toBe(true);
    const lines = posts.flatMap((p) => p.body.content.split('\n')).filter((l: string) => l.startsWith('print('));
    expect(lines).toEqual(code.split('\n'));
  });

  it('honours a 429 with Retry-After and rate-limit headers, keeping the parts in order', async () => {
    await start();
    let refused = false;
    fake.script((call) => {
      if (call.method === 'POST' && String(call.body?.content).startsWith('PART-2') && !refused) {
        refused = true;
        return {
          status: 429,
          headers: {
            'retry-after': '1',
            'x-ratelimit-limit': '5',
            'x-ratelimit-remaining': '0',
            'x-ratelimit-reset-after': '1.000',
            'x-ratelimit-bucket': 'b1',
            'x-ratelimit-scope': 'user',
          },
          body: { message: 'You are being rate limited.', retry_after: 1.0, global: false },
        };
      }
      return undefined;
    });
    const text = ['PART-1 ' + 'a'.repeat(1900), 'PART-2 ' + 'b'.repeat(1900), 'PART-3 ' + 'c'.repeat(1900)].join(
      '\n\n',
    );
    await channel!.send({ outboxId: 'o2', text }, { conversationKey: GENERAL });
    const posts = fake.callsTo('POST', /^\/channels\/\d+\/messages$/);
    expect(posts.map((p) => String(p.body.content).slice(0, 6))).toEqual(['PART-1', 'PART-2', 'PART-2', 'PART-3']);
    expect(posts[2]!.at - posts[1]!.at).toBeGreaterThanOrEqual(950);
  });

  it('reacts ➡️ for a steered message, and falls back to the text when the reaction fails', async () => {
    await start();
    const to = { conversationKey: GENERAL, platformMessageId: '1001' };
    await channel!.ack(to, 'steered', 'also fix the flaky test in the parser module please');
    const put = fake.callsTo('PUT', /reactions/)[0]!;
    expect(decodeURIComponent(put.path)).toBe(`/channels/${GENERAL}/messages/1001/reactions/➡️/@me`);
    expect(fake.callsTo('POST', /messages$/)).toHaveLength(0);

    fake.script((call) =>
      call.method === 'PUT' ? { status: 403, body: { message: 'Missing Permissions', code: 50013 } } : undefined,
    );
    await channel!.ack(to, 'steered', 'also fix the flaky test in the parser module please');
    const post = fake.callsTo('POST', /messages$/)[0]!;
    expect(post.body.content).toBe('➡️ got it: also fix the flaky test in the parser mo…');
    expect(post.body.message_reference).toMatchObject({ message_id: '1001' });
  });

  it('keeps typing alive in the channel, and stops when told', async () => {
    await start();
    const typings = () => fake.callsTo('POST', /\/typing$/);
    channel!.typing({ conversationKey: THREAD }, true);
    await fake.waitFor((c) => c.method === 'POST' && c.path === `/channels/${THREAD}/typing`);
    await vi.waitFor(() => expect(typings().length).toBeGreaterThanOrEqual(3));
    channel!.typing({ conversationKey: THREAD }, false);
    const atOff = typings().length;
    await new Promise((r) => setTimeout(r, TYPING_MS * 10));
    // At most one refresh was already on its way when typing was turned off.
    expect(typings().length).toBeLessThanOrEqual(atOff + 1);
    for (const t of typings()) expect(t.path).toBe(`/channels/${THREAD}/typing`);
  });

  it('fails start with CHANNEL_CONFIG for a missing or rejected token, without the token in the text', async () => {
    const missing = new DiscordChannel({
      config: discordSchema.parse({ restApi: fake.restApi }),
      dataDir,
      logger: silentLogger(),
    });
    const e1 = await missing.start(recordingSink()).catch((e: unknown) => e);
    expect(isRudderError(e1, 'CHANNEL_CONFIG')).toBe(true);
    expect((e1 as Error).message).toContain('channels.discord.token');

    const bad = 'AAAAAAAAAAAAAAAAAAAAAAAA.BBBBBB.wrong-token-wrong-token-wrong';
    const wrong = new DiscordChannel({
      config: discordSchema.parse({ token: bad, restApi: fake.restApi }),
      dataDir,
      logger: silentLogger(),
    });
    const e2 = await wrong.start(recordingSink()).catch((e: unknown) => e);
    expect(isRudderError(e2, 'CHANNEL_CONFIG')).toBe(true);
    expect((e2 as Error).message).toContain('rejected');
    expect((e2 as Error).message).not.toContain(bad);
    expect(wrong.status().state).toBe('error');
    expect(await wrong.probe()).toMatchObject({ ok: false });
  });
});

describe('discord without the Message Content intent', () => {
  it('says which portal switch to turn on', async () => {
    const fake = await startFakeDiscord({ closeOnIdentify: 4014 });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-dc-'));
    const channel = new DiscordChannel({
      config: discordSchema.parse({ token: fake.token, restApi: fake.restApi }),
      dataDir,
      logger: silentLogger(),
    });
    const err = await channel.start(recordingSink()).catch((e: unknown) => e);
    expect(isRudderError(err, 'CHANNEL_CONFIG')).toBe(true);
    expect((err as Error).message).toContain('Message Content Intent');
    await channel.stop();
    await fake.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
