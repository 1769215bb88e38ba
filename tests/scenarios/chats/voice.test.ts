/**
 * Voice both ways through a chat: a Telegram voice note goes through speech-to-text to the agent, and
 * with tts.command set the reply comes back as its text and then as a voice note of it (sendVoice),
 * through the outbox, so neither is lost or doubled: a refused upload is retried and sent once, a
 * failing command is said so. Without tts.command nothing changes. Real grammY against the fake Bot
 * API, the real CLI against the mock Messages API, the fake stt and tts commands (tests/support).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { markedPids, markPrefixOf } from '../../../src/agents/common/orphans.js';
import { speakable } from '../../../src/channels/speech.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { fakeTts, spokenText } from '../../support/tts-rig.js';

const OWNER = 111;
const FAKE_STT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../support/fake-stt.mjs');
const REPLY = 'The **build** passed: run `npm test` next.\n\n```\nlog line\n```';
let mock: MockApi;
let tg: FakeTelegram | undefined;
let gw: Awaited<ReturnType<typeof startInProcess>> | undefined;
let nextId = 1;
let budget = 30_000;

beforeAll(async () => {
  mock = await startMockApi();
  // A voice note's transcript is answered with Markdown, to see what is spoken of it.
  mock.setScript((r) => (r.lastText.includes('hello from the voice note') ? { kind: 'text', text: REPLY } : undefined));
});
afterAll(async () => {
  await mock.close();
});
afterEach(async () => {
  await gw?.stop();
  await tg?.close();
  gw = tg = undefined;
});

async function start(extra: Record<string, unknown>) {
  const t0 = Date.now();
  tg = await startFakeTelegram();
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    channels: { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
    stt: { command: process.execPath, args: [FAKE_STT, '{file}'] },
    ...extra,
  });
  budget = Math.min(90_000, Math.max(30_000, (Date.now() - t0) * 20));
  return { tg, gw };
}

function voiceNote(t: FakeTelegram, id: string) {
  t.addFile(id, Buffer.from(`OGG-${id}`), `voice/${id}.oga`);
  t.pushUpdate({
    message: {
      message_id: nextId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: OWNER, type: 'private', first_name: 'P' },
      from: { id: OWNER, is_bot: false, first_name: 'P' },
      voice: { file_id: id, file_unique_id: `u${id}`, duration: 1, mime_type: 'audio/ogg', file_size: 9 },
    },
  });
}

// The text replies: a progress card (a turn past minTurnSeconds on a busy machine) shows the text being written too.
const replies = (t: FakeTelegram) =>
  t
    .callsOf('sendMessage')
    .filter((c) => String(c.body.text).includes('passed') && !/⏳ Working/.test(String(c.body.text)));
const outbox = (g: NonNullable<typeof gw>, kind: string) =>
  g.gw.services.store.db.prepare('SELECT * FROM outbox WHERE kind = ?').all(kind) as Array<{
    delivered_at: number | null;
    text: string;
  }>;

describe('voice both ways in a chat (real grammY, real CLI)', () => {
  it('a voice note is answered with the text, then a voice note of it, each once', async () => {
    const log = path.join(tempDir('ttslog'), 'runs');
    const { tg: t, gw: g } = await start({ tts: fakeTts({ format: 'ogg' }) });
    process.env.FAKE_TTS_LOG = log;
    try {
      voiceNote(t, 'v1');
      const voice = await t.waitFor((c) => c.method === 'sendVoice', budget);
      // The text first, then the voice note, in the chat's order.
      expect(replies(t)).toHaveLength(1);
      expect(replies(t)[0]!.seq).toBeLessThan(voice.seq);
      expect(Number(voice.body.chat_id)).toBe(OWNER);
      const spoken = spokenText(voice.files!.voice!.data);
      expect(spoken).toBe(speakable(REPLY, 4000));
      expect(spoken).toBe('The build passed: run npm test next.\n(code)');
      expect(voice.files!.voice!.name).toBe('reply.ogg');
      await waitUntil(() => outbox(g, 'voice')[0]?.delivered_at != null);
      expect(t.callsOf('sendVoice')).toHaveLength(1);
      expect(fs.readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
      // Sent: its audio file is removed from the data dir.
      await waitUntil(() => fs.readdirSync(path.join(g.home, 'voice')).length === 0);

      // A text message is answered with text only.
      t.pushUpdate({
        message: {
          message_id: nextId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: OWNER, type: 'private', first_name: 'P' },
          from: { id: OWNER, is_bot: false, first_name: 'P' },
          text: 'typed tag:typed',
        },
      });
      await waitUntil(() => t.callsOf('sendMessage').some((c) => String(c.body.text).includes('ok tag:typed')), budget);
      expect(t.callsOf('sendVoice')).toHaveLength(1);
    } finally {
      delete process.env.FAKE_TTS_LOG;
    }
  });

  it('a refused upload stays owed and goes once; the audio is made once', async () => {
    const log = path.join(tempDir('ttslog'), 'runs');
    const { tg: t, gw: g } = await start({ tts: fakeTts({ format: 'ogg' }) });
    process.env.FAKE_TTS_LOG = log;
    let refusals = 0;
    t.script('sendVoice', () =>
      refusals++ < 1
        ? {
            status: 429,
            body: { ok: false, error_code: 429, description: 'Too Many Requests', parameters: { retry_after: 1 } },
          }
        : undefined,
    );
    try {
      voiceNote(t, 'v2');
      await waitUntil(() => outbox(g, 'voice')[0]?.delivered_at != null, budget);
      const calls = t.callsOf('sendVoice');
      expect(calls.length).toBeGreaterThanOrEqual(2);
      // Every attempt carried the same audio; the platform accepted one.
      expect(new Set(calls.map((c) => spokenText(c.files!.voice!.data)))).toEqual(new Set([speakable(REPLY, 4000)]));
      expect([...t.messages.values()].filter((m) => m.text === '' && m.chatId === OWNER)).toHaveLength(1);
      expect(fs.readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
      expect(replies(t)).toHaveLength(1);
    } finally {
      delete process.env.FAKE_TTS_LOG;
    }
  });

  it('a failing tts command is said so in the chat, after the text reply', async () => {
    const { tg: t, gw: g } = await start({ tts: fakeTts({ format: 'ogg' }) });
    process.env.FAKE_TTS_MODE = 'fail';
    try {
      voiceNote(t, 'v3');
      await waitUntil(
        () => t.callsOf('sendMessage').some((c) => String(c.body.text).includes('voice note of this reply')),
        budget,
      );
      const notice = t.callsOf('sendMessage').find((c) => String(c.body.text).includes('voice note of this reply'))!;
      expect(notice.body.text).toContain('voice model not found');
      expect(replies(t)[0]!.seq).toBeLessThan(notice.seq);
      expect(t.callsOf('sendVoice')).toHaveLength(0);
      expect(outbox(g, 'voice')).toHaveLength(0);
    } finally {
      delete process.env.FAKE_TTS_MODE;
    }
  });

  it('a text-to-speech command still running stops with the gateway (it carries the data dir’s mark)', async () => {
    const { tg: t, gw: g } = await start({ tts: fakeTts({ format: 'ogg' }) });
    process.env.FAKE_TTS_MODE = 'hang';
    try {
      voiceNote(t, 'v5');
      // The fake command's processes carrying this data dir's mark (the agent's carry it too).
      const prefix = markPrefixOf(g.home);
      const tts = () =>
        markedPids((m) => m.startsWith(`${prefix}:`)).filter((pid) => {
          try {
            return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('fake-tts.mjs');
          } catch {
            return false;
          }
        });
      await waitUntil(() => tts().length === 1, budget);
      await g.stop();
      gw = undefined;
      await waitUntil(() => tts().length === 0);
    } finally {
      delete process.env.FAKE_TTS_MODE;
    }
  });

  it('without tts.command nothing changes: the text reply only, no voice owed', async () => {
    const { tg: t, gw: g } = await start({});
    voiceNote(t, 'v4');
    await waitUntil(() => replies(t).length === 1, budget);
    // A chat's replies go out in order: once a later message is answered, a voice note of the first would be out.
    t.pushUpdate({
      message: {
        message_id: nextId++,
        date: Math.floor(Date.now() / 1000),
        chat: { id: OWNER, type: 'private', first_name: 'P' },
        from: { id: OWNER, is_bot: false, first_name: 'P' },
        text: 'after tag:after',
      },
    });
    await waitUntil(() => t.callsOf('sendMessage').some((c) => String(c.body.text).includes('ok tag:after')), budget);
    expect(t.callsOf('sendVoice').length + t.callsOf('sendAudio').length + t.callsOf('sendDocument').length).toBe(0);
    expect(outbox(g, 'voice')).toHaveLength(0);
    expect(fs.existsSync(path.join(g.home, 'voice'))).toBe(false);
    const speech = (await (await g.api('GET', '/api/speech')).json()) as Record<string, boolean>;
    expect(speech).toEqual({ transcribe: true, speak: false });
  });
});
