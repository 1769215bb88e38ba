/**
 * Slack's progress card and permission buttons on @slack/bolt (Socket Mode) against the fake
 * Slack: the card is posted and updated with chat.update, a request is split across messages with
 * its Block Kit buttons on the last, a press arrives as block_actions, is acknowledged only after
 * the gateway decided, and is answered to the presser alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SlackChannel } from '../../../../src/channels/slack/channel.js';
import { slackSchema } from '../../../../src/config/channels-schema.js';
import { isRudderError } from '../../../../src/errors.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { type FakeSlack, startFakeSlack } from '../../../support/fake-slack.js';
import { recordingSink } from '../../../support/recording-sink.js';

const ANN = 'U0ANN';
const card = (header: string, final = false) => ({
  header,
  lines: final ? [] : ['▶️ **Bash** `sleep 2` · 1s'],
  buttons: final ? [] : [{ label: '⏹ Stop', data: 's:abc', style: 'danger' as const }],
  final,
});

describe('slack progress card and permission buttons', () => {
  let fake: FakeSlack;
  let dataDir: string;
  let channel: SlackChannel | undefined;

  beforeEach(async () => {
    fake = await startFakeSlack();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-slp-'));
  });
  afterEach(async () => {
    await channel?.stop();
    channel = undefined;
    await fake.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (sink = recordingSink()) => {
    channel = new SlackChannel({
      config: slackSchema.parse({
        botToken: fake.botToken,
        appToken: fake.appToken,
        apiUrl: fake.apiUrl,
        owners: [ANN],
      }),
      dataDir,
      logger: silentLogger(),
    });
    await channel.start(sink);
    await fake.connected();
    return sink;
  };

  it('posts the card in its thread and updates it in place', async () => {
    await start();
    const to = { conversationKey: 'C0GEN:1700000100.000100' };
    const ts = await channel!.capabilities!.cards!.postCard(to, card('⏳ Working · 1 step · 3s'));
    const m = fake.messages.get(ts)!;
    expect(m).toMatchObject({
      channel: 'C0GEN',
      thread_ts: '1700000100.000100',
      text: '⏳ Working · 1 step · 3s\n▶️ *Bash* `sleep 2` · 1s',
    });
    expect(m.blocks![1]).toMatchObject({
      type: 'actions',
      elements: [{ type: 'button', value: 's:abc', style: 'danger', text: { text: '⏹ Stop' } }],
    });
    await channel!.capabilities!.cards!.editCard!(to, ts, card('✓ 1 step · 5s', true));
    expect(fake.messages.get(ts)).toMatchObject({
      text: '✓ 1 step · 5s',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '✓ 1 step · 5s' } }],
    });
  });

  it('reports a rate-limited update once, with Retry-After, and retries nothing itself', async () => {
    await start();
    const to = { conversationKey: 'D0ANN' };
    const ts = await channel!.capabilities!.cards!.postCard(to, card('⏳ Working · 1 step · 3s'));
    fake.script((call) =>
      call.method === 'chat.update'
        ? { status: 429, headers: { 'retry-after': '2' }, body: { ok: false, error: 'ratelimited' } }
        : undefined,
    );
    const err = await channel!.capabilities!.cards!.editCard!(to, ts, card('⏳ Working · 2 steps · 4s')).catch(
      (e: unknown) => e,
    );
    expect(isRudderError(err, 'CHANNEL_RATE_LIMITED')).toBe(true);
    expect((err as { context: { retryAfterMs: number } }).context.retryAfterMs).toBe(2000);
    expect(fake.callsOf('chat.update')).toHaveLength(1);
  });

  it(
    'splits a long request across messages with the buttons on the last; a press is acked after the gateway ' +
      'decided and answered ephemerally',
    async () => {
      const sink = await start();
      let decide!: () => void;
      const decided = new Promise<void>((r) => (decide = r));
      sink.answerPress(async (p) => {
        await decided;
        return { ok: false, text: `refused ${p.data}` };
      });
      const to = { conversationKey: 'C0GEN' };
      const body = 'z'.repeat(4000);
      const prompt = {
        text: `🔐 **The agent asks to use Bash**\n**command**\n\`\`\`\n${body}\n\`\`\``,
        buttons: [
          { label: 'Allow', data: 'p:r1:1', style: 'primary' as const },
          { label: 'Deny', data: 'p:r1:2', style: 'danger' as const },
        ],
      };
      const ts = await channel!.capabilities!.buttons!.askPermission(to, prompt);
      const posted = [...fake.messages.values()];
      expect(posted.length).toBeGreaterThanOrEqual(2);
      expect(posted.at(-1)!.ts).toBe(ts);
      expect(posted.slice(0, -1).every((m) => !m.blocks)).toBe(true);
      expect(
        posted
          .map((m) => m.text)
          .join('')
          .replace(/[`\n]/g, ''),
      ).toContain(body);
      const buttons = posted.at(-1)!.blocks![1].elements as Array<{ action_id: string; value: string; style: string }>;
      expect(buttons.map((b) => [b.value, b.style])).toEqual([
        ['p:r1:1', 'primary'],
        ['p:r1:2', 'danger'],
      ]);

      const env = fake.press(ANN, ts, buttons[0]!.action_id, buttons[0]!.value);
      const [press] = await sink.waitForPresses(1);
      expect(press).toMatchObject({
        channel: 'slack',
        conversationKey: 'C0GEN',
        sender: { id: ANN },
        chatType: 'group',
        data: 'p:r1:1',
      });
      // Slack redelivers what is not acknowledged: the ack waits for the gateway's decision.
      await new Promise((r) => setTimeout(r, 200));
      expect(fake.acks).not.toContain(env);
      decide();
      await fake.waitForAck(env);
      await vi.waitFor(() =>
        expect(fake.callsOf('chat.postEphemeral').map((c) => c.args)).toEqual([
          expect.objectContaining({ channel: 'C0GEN', user: ANN, text: 'refused p:r1:1' }),
        ]),
      );

      await channel!.capabilities!.buttons!.settlePermission!(to, ts, {
        ...prompt,
        buttons: [],
        outcome: '🚫 **Deny**, answered by slack:U0ANN',
      });
      const settled = fake.messages.get(ts)!;
      expect(settled.blocks).toHaveLength(1);
      expect(settled.text).toContain('🚫 *Deny*, answered by slack:U0ANN');
    },
  );
});
