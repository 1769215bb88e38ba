/**
 * Discord's progress card and permission buttons on discord.js against the fake REST API and
 * gateway: the card is a quiet message edited in place, a request is split across messages with
 * its buttons on the last, a press arrives as an interaction and is answered ephemerally.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiscordChannel } from '../../../../src/channels/discord/channel.js';
import { discordSchema } from '../../../../src/config/channels-schema.js';
import { isRudderError } from '../../../../src/errors.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { type FakeDiscord, startFakeDiscord } from '../../../support/fake-discord.js';
import { recordingSink } from '../../../support/recording-sink.js';

const GUILD = '500000000000000001';
const GENERAL = '600000000000000001';
const ann = { id: '420000000000000001', username: 'ann', global_name: 'Ann' };
const card = (header: string, final = false) => ({
  header,
  lines: final ? [] : ['▶️ **Bash** `sleep 2` · 1s'],
  buttons: final ? [] : [{ label: '⏹ Stop', data: 's:abc', style: 'danger' as const }],
  final,
});

describe('discord progress card and permission buttons', () => {
  let fake: FakeDiscord;
  let dataDir: string;
  let channel: DiscordChannel | undefined;

  beforeEach(async () => {
    fake = await startFakeDiscord({ guilds: [{ id: GUILD, channels: [{ id: GENERAL, name: 'general' }] }] });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-dcp-'));
  });
  afterEach(async () => {
    await channel?.stop();
    channel = undefined;
    await fake.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (sink = recordingSink()) => {
    channel = new DiscordChannel({
      config: discordSchema.parse({ token: fake.token, restApi: fake.restApi, owners: [ann.id] }),
      dataDir,
      logger: silentLogger(),
    });
    await channel.start(sink);
    await fake.ready();
    return sink;
  };

  it('posts the card without a notification and edits it in place, Stop button and all', async () => {
    await start();
    const to = { conversationKey: GENERAL };
    const id = await channel!.capabilities!.cards!.postCard(to, card('⏳ Working · 1 step · 3s'));
    const m = fake.messages.get(id)!;
    expect(m.content).toBe('⏳ Working · 1 step · 3s\n▶️ **Bash** `sleep 2` · 1s');
    expect(m.flags).toBe(4096);
    expect(m.components[0].components[0]).toMatchObject({ type: 2, style: 4, label: '⏹ Stop', custom_id: 's:abc' });
    await channel!.capabilities!.cards!.editCard!(to, id, card('✓ 1 step · 5s', true));
    expect(fake.callsTo('PATCH', /messages\/\d+$/)).toHaveLength(1);
    expect(fake.messages.get(id)).toMatchObject({ content: '✓ 1 step · 5s', components: [] });
  });

  it('reports a 429 on an edit once, with the wait, and retries nothing itself', async () => {
    await start();
    const to = { conversationKey: GENERAL };
    const id = await channel!.capabilities!.cards!.postCard(to, card('⏳ Working · 1 step · 3s'));
    fake.script((call) =>
      call.method === 'PATCH'
        ? {
            status: 429,
            headers: {
              'retry-after': '2',
              'x-ratelimit-limit': '5',
              'x-ratelimit-remaining': '0',
              'x-ratelimit-reset-after': '2.000',
              'x-ratelimit-bucket': 'e1',
              'x-ratelimit-scope': 'user',
            },
            body: { message: 'You are being rate limited.', retry_after: 2, global: false },
          }
        : undefined,
    );
    const err = await channel!.capabilities!.cards!.editCard!(to, id, card('⏳ Working · 2 steps · 4s')).catch(
      (e: unknown) => e,
    );
    expect(isRudderError(err, 'CHANNEL_RATE_LIMITED')).toBe(true);
    expect((err as { context: { retryAfterMs: number } }).context.retryAfterMs).toBeGreaterThanOrEqual(1900);
    expect(fake.callsTo('PATCH', /messages\/\d+$/)).toHaveLength(1);
  });

  it(
    'splits a long request across messages with the buttons on the last; a press is answered to the presser ' +
      'alone; the answer replaces the buttons',
    async () => {
      const sink = await start();
      sink.answerPress((p) => ({ ok: true, text: `pressed ${p.data}` }));
      const to = { conversationKey: GENERAL };
      const body = 'x'.repeat(3000);
      const prompt = {
        text: `🔐 **The agent asks to use Bash**\n**command**\n\`\`\`\n${body}\n\`\`\``,
        buttons: [
          { label: 'Allow', data: 'p:r1:1', style: 'primary' as const },
          { label: 'Deny', data: 'p:r1:2', style: 'danger' as const },
        ],
      };
      const id = await channel!.capabilities!.buttons!.askPermission(to, prompt);
      const posted = [...fake.messages.values()];
      expect(posted.length).toBeGreaterThanOrEqual(2);
      expect(posted.at(-1)!.id).toBe(id);
      expect(posted.slice(0, -1).every((m) => m.components.length === 0)).toBe(true);
      expect(
        posted
          .map((m) => m.content)
          .join('')
          .replace(/[`\n]/g, ''),
      ).toContain(body);
      expect(
        posted.at(-1)!.components[0].components.map((b: { label: string; style: number }) => [b.label, b.style]),
      ).toEqual([
        ['Allow', 3],
        ['Deny', 4],
      ]);

      const interaction = fake.press(ann, id, 'p:r1:1', GUILD);
      const [press] = await sink.waitForPresses(1);
      expect(press).toEqual({
        channel: 'discord',
        conversationKey: GENERAL,
        sender: { id: ann.id, name: 'Ann' },
        chatType: 'group',
        data: 'p:r1:1',
      });
      const callback = await fake.waitFor(
        (c) => c.method === 'POST' && c.path.startsWith(`/interactions/${interaction}/`),
      );
      expect(callback.body).toMatchObject({ type: 4, data: { content: 'pressed p:r1:1', flags: 64 } });

      await channel!.capabilities!.buttons!.settlePermission!(to, id, {
        ...prompt,
        buttons: [],
        outcome: '✅ **Allow**, answered by discord:ann',
      });
      expect(fake.messages.get(id)!.components).toEqual([]);
      expect(fake.messages.get(id)!.content).toContain('✅ **Allow**, answered by discord:ann');
    },
  );
});
