import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SlackChannel } from '../../../../src/channels/slack/channel.js';
import { slackSchema } from '../../../../src/config/channels-schema.js';
import { isRudderError } from '../../../../src/errors.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { type FakeSlack, startFakeSlack } from '../../../support/fake-slack.js';
import { recordingSink } from '../../../support/recording-sink.js';

const ANN = 'U0ANN';

describe('slack channel on @slack/bolt Socket Mode against a fake Slack', () => {
  let fake: FakeSlack;
  let dataDir: string;
  let channel: SlackChannel | undefined;

  beforeEach(async () => {
    fake = await startFakeSlack();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-sl-'));
  });

  afterEach(async () => {
    await channel?.stop();
    channel = undefined;
    await fake.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (sink = recordingSink(), over: Record<string, unknown> = {}) => {
    const config = slackSchema.parse({
      botToken: fake.botToken,
      appToken: fake.appToken,
      apiUrl: fake.apiUrl,
      owners: [ANN],
      ...over,
    });
    channel = new SlackChannel({ config, dataDir, logger: silentLogger() });
    await channel.start(sink);
    await fake.connected();
    return sink;
  };

  it('normalises a mention, a thread reply with its root as the quote, a file, an audio clip and an edit', async () => {
    const sink = await start();
    fake.threads.set('C0GEN:1700000100.000100', [
      { type: 'message', user: fake.botUserId, text: 'Build failed on main', ts: '1700000100.000100' },
    ]);
    const fileUrl = fake.addFile('log.txt', 'LOG-CONTENT');
    const clipUrl = fake.addFile('clip.webm', 'WEBM-AUDIO');
    const env = [
      fake.sendEvent({
        type: 'message',
        channel: 'C0GEN',
        channel_type: 'channel',
        user: ANN,
        text: `<@${fake.botUserId}> why is *main* red? &lt;3`,
        ts: '1700000200.000100',
      }),
      fake.sendEvent({
        type: 'message',
        channel: 'C0GEN',
        channel_type: 'channel',
        user: ANN,
        text: 'retry it please',
        ts: '1700000201.000100',
        thread_ts: '1700000100.000100',
        parent_user_id: fake.botUserId,
      }),
      fake.sendEvent({
        type: 'message',
        subtype: 'file_share',
        channel: 'D0ANN',
        channel_type: 'im',
        user: ANN,
        text: 'here is the log',
        ts: '1700000202.000100',
        files: [
          {
            id: 'F1',
            name: 'log.txt',
            mimetype: 'text/plain',
            filetype: 'text',
            size: 11,
            url_private_download: fileUrl,
          },
        ],
      }),
      fake.sendEvent({
        type: 'message',
        subtype: 'file_share',
        channel: 'D0ANN',
        channel_type: 'im',
        user: ANN,
        text: '',
        ts: '1700000203.000100',
        files: [
          {
            id: 'F2',
            name: 'clip.webm',
            mimetype: 'audio/webm',
            subtype: 'slack_audio',
            size: 10,
            url_private_download: clipUrl,
          },
        ],
      }),
      fake.sendEvent({
        type: 'message',
        subtype: 'message_changed',
        channel: 'D0ANN',
        channel_type: 'im',
        ts: '1700000204.000100',
        message: {
          type: 'message',
          user: ANN,
          text: 'here is the full log',
          ts: '1700000202.000100',
          edited: { user: ANN, ts: '1700000204.000000' },
        },
        previous_message: { type: 'message', user: ANN, text: 'here is the log', ts: '1700000202.000100' },
      }),
      fake.sendEvent({
        type: 'message',
        channel: 'C0GEN',
        channel_type: 'channel',
        user: ANN,
        text: 'lunch anyone?',
        ts: '1700000205.000100',
      }),
    ];
    const [mention, thread, file, clip, edit, chatter] = await sink.waitForCount(6);
    expect(mention).toMatchObject({
      channel: 'slack',
      platformMessageId: 'C0GEN:1700000200.000100',
      conversationKey: 'C0GEN',
      chatType: 'group',
      addressed: true,
      text: 'why is *main* red? <3',
      sender: { id: ANN },
    });
    expect(thread).toMatchObject({
      conversationKey: 'C0GEN:1700000100.000100',
      addressed: true,
      quoted: { text: 'Build failed on main' },
    });
    expect(file).toMatchObject({ conversationKey: 'D0ANN', chatType: 'direct', text: 'here is the log' });
    expect(fs.readFileSync(file!.attachments![0]!.path, 'utf8')).toBe('LOG-CONTENT');
    expect(file!.attachments![0]).toMatchObject({ kind: 'document', name: 'log.txt', mime: 'text/plain' });
    expect(clip!.attachments![0]).toMatchObject({ kind: 'voice', mime: 'audio/webm' });
    expect(edit).toMatchObject({ editOf: 'D0ANN:1700000202.000100', text: 'here is the full log' });
    expect(edit!.platformMessageId).not.toBe('D0ANN:1700000202.000100');
    expect(chatter).toMatchObject({ addressed: false });
    for (const e of env) await fake.waitForAck(e);
  });

  it('downloads nothing and reads no thread root for a sender the sink does not admit', async () => {
    const sink = recordingSink();
    sink.refuse((m) => m.sender.id === 'U0BOB');
    await start(sink);
    fake.threads.set('C0GEN:1700000100.000100', [
      { type: 'message', user: fake.botUserId, text: 'Build failed on main', ts: '1700000100.000100' },
    ]);
    const fileUrl = fake.addFile('secret.txt', 'SECRET');
    const file = {
      id: 'F7',
      name: 'secret.txt',
      mimetype: 'text/plain',
      filetype: 'text',
      size: 6,
      url_private_download: fileUrl,
    };
    fake.sendEvent({
      type: 'message',
      subtype: 'file_share',
      channel: 'D0BOB',
      channel_type: 'im',
      user: 'U0BOB',
      text: 'take this',
      ts: '1700000500.000100',
      files: [file],
    });
    fake.sendEvent({
      type: 'message',
      channel: 'C0GEN',
      channel_type: 'channel',
      user: 'U0BOB',
      text: `<@${fake.botUserId}> retry`,
      ts: '1700000501.000100',
      thread_ts: '1700000100.000100',
    });
    const [dm, reply] = await sink.waitForCount(2);
    expect(dm!.attachments).toBeUndefined();
    expect(reply!.quoted).toBeUndefined();
    expect(fake.callsOf('conversations.replies')).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'attachments'))).toBe(false);
  });

  it("sends the bot token only to Slack's file host or the apiUrl host: a file elsewhere becomes a note", async () => {
    const sink = await start();
    const hits: string[] = [];
    const elsewhere = http.createServer((req, res) => {
      hits.push(String(req.headers.authorization));
      res.end('STOLEN');
    });
    await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
    const url = `http://localhost:${(elsewhere.address() as AddressInfo).port}/files/evil.txt`;
    fake.sendEvent({
      type: 'message',
      subtype: 'file_share',
      channel: 'D0ANN',
      channel_type: 'im',
      user: ANN,
      text: 'see file',
      ts: '1700000400.000100',
      files: [{ id: 'F9', name: 'evil.txt', mimetype: 'text/plain', size: 6, url_private_download: url }],
    });
    const [msg] = await sink.waitForCount(1);
    await new Promise<void>((r) => elsewhere.close(() => r()));
    expect(hits).toEqual([]);
    expect(msg!.attachments).toBeUndefined();
    expect(msg!.text).toMatch(
      /^see file\n\[attachment "evil.txt" could not be saved: .*not fetched with the bot token\]$/,
    );
  });

  it('withholds the Socket Mode ack until the message is committed, so a failed commit is redelivered', async () => {
    const sink = recordingSink();
    sink.failNext(1);
    await start(sink);
    const event = {
      type: 'message',
      channel: 'D0ANN',
      channel_type: 'im',
      user: ANN,
      text: 'do not lose me',
      ts: '1700000300.000100',
    };
    const first = fake.sendEvent(event);
    const second = fake.sendEvent(event);
    await fake.waitForAck(second);
    expect(fake.acks).not.toContain(first);
    expect(sink.messages.map((m) => m.text)).toEqual(['do not lose me']);
  });

  it('splits at 4000 characters as mrkdwn, reopening a code block, inside the thread', async () => {
    await start();
    const code = Array.from({ length: 200 }, (_, i) => `echo "step ${i}" && make target-${i}`).join('\n');
    await channel!.send(
      { outboxId: 'o1', text: `**Plan** for <main>:\n\`\`\`sh\n${code}\n\`\`\`` },
      { conversationKey: 'C0GEN:1700000100.000100' },
    );
    const posts = fake.callsOf('chat.postMessage');
    expect(posts.length).toBeGreaterThan(1);
    for (const p of posts) {
      expect(String(p.args.text).length).toBeLessThanOrEqual(4000);
      expect(p.args.thread_ts).toBe('1700000100.000100');
      expect(p.args.channel).toBe('C0GEN');
      expect((String(p.args.text).match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(String(posts[0]!.args.text).startsWith('*Plan* for &lt;main&gt;:\n```\n')).toBe(true);
    expect(String(posts[1]!.args.text).startsWith('```\n')).toBe(true);
    const lines = posts.flatMap((p) => String(p.args.text).split('\n')).filter((l) => l.startsWith('echo'));
    expect(lines).toEqual(code.replace(/&/g, '&amp;').split('\n'));
  });

  it('honours Retry-After on a 429 and keeps the parts in order', async () => {
    await start();
    let refused = false;
    fake.script((call) => {
      if (call.method === 'chat.postMessage' && String(call.args.text).startsWith('PART-2') && !refused) {
        refused = true;
        return { status: 429, headers: { 'retry-after': '1' }, body: { ok: false, error: 'ratelimited' } };
      }
      return undefined;
    });
    const text = ['PART-1 ' + 'a'.repeat(3900), 'PART-2 ' + 'b'.repeat(3900), 'PART-3 ' + 'c'.repeat(3900)].join(
      '\n\n',
    );
    await channel!.send({ outboxId: 'o2', text }, { conversationKey: 'D0ANN' });
    const posts = fake.callsOf('chat.postMessage');
    expect(posts.map((p) => String(p.args.text).slice(0, 6))).toEqual(['PART-1', 'PART-2', 'PART-2', 'PART-3']);
    expect(posts[2]!.at - posts[1]!.at).toBeGreaterThanOrEqual(950);
  });

  it('reacts :arrow_right: for a steered message, with the text fallback when reactions.add fails', async () => {
    await start();
    const to = { conversationKey: 'C0GEN', platformMessageId: 'C0GEN:1700000200.000100' };
    await channel!.ack(to, 'steered', 'and bump the version');
    expect(fake.callsOf('reactions.add')[0]!.args).toMatchObject({
      channel: 'C0GEN',
      timestamp: '1700000200.000100',
      name: 'arrow_right',
    });
    expect(fake.callsOf('chat.postMessage')).toHaveLength(0);
    fake.script((call) =>
      call.method === 'reactions.add'
        ? { body: { ok: false, error: 'missing_scope', needed: 'reactions:write' } }
        : undefined,
    );
    await channel!.ack(to, 'steered', 'and bump the version');
    expect(fake.callsOf('chat.postMessage')[0]!.args.text).toBe('➡️ got it: and bump the version');
  });

  it('fails start with CHANNEL_CONFIG naming the key: missing app token, rejected bot token', async () => {
    const missing = new SlackChannel({
      config: slackSchema.parse({ botToken: fake.botToken, apiUrl: fake.apiUrl }),
      dataDir,
      logger: silentLogger(),
    });
    const e1 = await missing.start(recordingSink()).catch((e: unknown) => e);
    expect(isRudderError(e1, 'CHANNEL_CONFIG')).toBe(true);
    expect((e1 as Error).message).toContain('channels.slack.appToken');

    const wrong = new SlackChannel({
      config: slackSchema.parse({ botToken: 'xoxb-wrong-wrong-wrong', appToken: fake.appToken, apiUrl: fake.apiUrl }),
      dataDir,
      logger: silentLogger(),
    });
    const e2 = await wrong.start(recordingSink()).catch((e: unknown) => e);
    expect(isRudderError(e2, 'CHANNEL_CONFIG')).toBe(true);
    expect((e2 as Error).message).toContain('channels.slack.botToken was rejected');
    expect((e2 as Error).message).not.toContain('xoxb-wrong');
    expect(wrong.status().state).toBe('error');
  });
});
