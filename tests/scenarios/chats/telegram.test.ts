/**
 * A chat channel through the whole gateway: the real grammY adapter against a fake Bot API, the
 * real CLI against the mock Messages API. Access control, pairing, voice notes and the steered
 * acknowledgement behave as on every channel.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, CLI, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { processesOfRun } from '../../support/procs.js';

const OWNER = 111;
const STRANGER = 222;
let mock: MockApi;
let tg: FakeTelegram;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let claudeHome: string;
let nextId = 1;

function text(from: number, body: string, extra: Record<string, unknown> = {}) {
  return {
    message: {
      message_id: nextId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: from, type: 'private', first_name: 'P' },
      from: { id: from, is_bot: false, first_name: 'P' },
      text: body,
      ...extra,
    },
  };
}
const photo = (fileId: string) => ({
  photo: [{ file_id: fileId, file_unique_id: `u${fileId}`, width: 10, height: 10, file_size: 9 }],
});
/** Every file saved under the data dir's attachments folder. */
const savedFiles = (home: string): string[] => {
  const root = path.join(home, 'attachments');
  return fs.existsSync(root)
    ? (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[])
        .filter((d) => d.isFile())
        .map((d) => d.name)
    : [];
};
const sent = (chatId: number) =>
  tg
    .callsOf('sendMessage')
    .filter((c) => Number(c.body.chat_id) === chatId)
    .map((c) => String(c.body.text));

beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(async () => {
  tg = await startFakeTelegram();
  claudeHome = tempDir('chome');
  gw = await startInProcess({
    agent: agentConfig(mock.url, claudeHome),
    channels: { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
  });
});
afterEach(async () => {
  await gw.stop();
  await tg.close();
});

describe('telegram through the gateway (real grammY, real CLI)', () => {
  it('answers the owner, with the received reaction', async () => {
    tg.pushUpdate(text(OWNER, 'hello tag:tg1'));
    await waitUntil(() => sent(OWNER).some((t) => t.includes('ok tag:tg1')), 20_000);
    const reactions = tg.callsOf('setMessageReaction').map((c) => c.body.reaction?.[0]?.emoji);
    expect(reactions).toContain('👀');
  });

  it('refuses a stranger with a pairing code, never reaching the agent, and admits them once approved', async () => {
    const before = mock.requests.length;
    tg.pushUpdate(text(STRANGER, 'let me in tag:stranger'));
    await waitUntil(() => sent(STRANGER).length > 0);
    const code = /rudder pairing approve telegram (\S+)/.exec(sent(STRANGER)[0]!)![1]!;
    expect(mock.requests.length).toBe(before);
    expect(mock.requests.some((r) => r.historyText.includes('tag:stranger'))).toBe(false);
    const refused = gw.gw.services.store.db
      .prepare("SELECT state, reason FROM messages WHERE text LIKE '%tag:stranger%'")
      .get() as { state: string; reason: string };
    expect(refused).toEqual({ state: 'refused', reason: 'pairing-pending' });

    const r = spawnSync(process.execPath, [CLI, 'pairing', 'approve', 'telegram', code], {
      env: { ...process.env, RUDDER_HOME: gw.home },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Approved');
    tg.pushUpdate(text(STRANGER, 'now tag:paired'));
    await waitUntil(() => sent(STRANGER).some((t) => t.includes('ok tag:paired')), 20_000);
    // Commands stay owner-only.
    tg.pushUpdate(text(STRANGER, '/clear'));
    await waitUntil(() => sent(STRANGER).some((t) => t.includes('Only the owner can use commands')));
  });

  it(
    "downloads nothing a stranger sends, and keeps no file of a refused message; an owner's photo still " + 'arrives',
    async () => {
      tg.addFile('ph-stranger', Buffer.from('STRANGER1'), 'photos/stranger.jpg');
      tg.pushUpdate(text(STRANGER, '', { text: undefined, caption: 'look tag:sphoto', ...photo('ph-stranger') }));
      await waitUntil(() => sent(STRANGER).some((t) => t.includes('rudder pairing approve')));
      const refused = gw.gw.services.store.db
        .prepare("SELECT state, reason, extra FROM messages WHERE text LIKE '%tag:sphoto%'")
        .get() as { state: string; reason: string; extra: string };
      expect(refused).toMatchObject({ state: 'refused', reason: 'pairing-pending' });
      expect(JSON.parse(refused.extra).attachments).toBeUndefined();
      expect(tg.callsOf('getFile')).toEqual([]);
      expect(tg.log.filter((l) => l.startsWith('file '))).toEqual([]);
      expect(savedFiles(gw.home)).toEqual([]);

      // The owner's photo is fetched and reaches the agent as a file path.
      tg.addFile('ph-owner', Buffer.from('OWNERPNG1'), 'photos/owner.jpg');
      tg.pushUpdate(text(OWNER, '', { text: undefined, caption: 'see tag:ophoto', ...photo('ph-owner') }));
      await waitUntil(() => sent(OWNER).some((t) => t.includes('ok tag:ophoto')), 20_000);
      expect(tg.callsOf('getFile').map((c) => c.body.file_id)).toEqual(['ph-owner']);
      expect(savedFiles(gw.home)).toHaveLength(1);
      const ownerRow = gw.gw.services.store.db
        .prepare("SELECT extra FROM messages WHERE text LIKE '%tag:ophoto%'")
        .get() as {
        extra: string;
      };
      const saved = JSON.parse(ownerRow.extra).attachments[0].path as string;
      expect(fs.readFileSync(saved, 'utf8')).toBe('OWNERPNG1');
      expect(mock.mainRequests().some((r) => r.historyText.includes(saved))).toBe(true);

      // Admitted at the door but refused after: sent before a /stop and delivered late. Its file is deleted.
      tg.pushUpdate(text(OWNER, '/stop'));
      await waitUntil(() => sent(OWNER).some((t) => t.startsWith('⏹')));
      tg.addFile('ph-late', Buffer.from('LATEPNG1'), 'photos/late.jpg');
      tg.pushUpdate(
        text(OWNER, '', {
          text: undefined,
          caption: 'late tag:late',
          date: Math.floor(Date.now() / 1000) - 60,
          ...photo('ph-late'),
        }),
      );
      await waitUntil(
        () =>
          gw.gw.services.store.db
            .prepare("SELECT 1 FROM messages WHERE text LIKE '%tag:late%' AND state = 'refused'")
            .get() !== undefined,
      );
      expect(tg.callsOf('getFile').map((c) => c.body.file_id)).toContain('ph-late');
      expect(savedFiles(gw.home)).toEqual([path.basename(saved)]);
    },
  );

  it('answers a voice note with "not set up" when no speech-to-text is configured', async () => {
    tg.addFile('voice-9', Buffer.from('OGG'), 'voice/file_9.oga');
    tg.pushUpdate(
      text(OWNER, '', {
        text: undefined,
        voice: { file_id: 'voice-9', file_unique_id: 'v9', duration: 1, mime_type: 'audio/ogg', file_size: 3 },
      }),
    );
    await waitUntil(() => sent(OWNER).some((t) => t.includes('Voice notes are not set up')), 20_000);
    const row = gw.gw.services.store.db
      .prepare("SELECT state, reason FROM messages WHERE channel = 'telegram' ORDER BY seq DESC LIMIT 1")
      .get();
    expect(row).toEqual({ state: 'failed', reason: 'speech-to-text is not configured' });
  });

  it('acknowledges a steered message with the text fallback (Telegram has no ➡️ reaction)', async () => {
    tg.pushUpdate(text(OWNER, 'work [[bash:echo start; sleep 10]] tag:w'));
    // The tool runs (its process exists): a message now is steered into this turn.
    await waitUntil(() => processesOfRun(claudeHome).some((p) => /sleep 10/.test(p.cmdline)), 20_000);
    tg.pushUpdate(text(OWNER, 'please also check the logs tag:steer'));
    await waitUntil(() => sent(OWNER).some((t) => t.startsWith('➡️ got it: please also check the logs')), 10_000);
    await waitUntil(() => sent(OWNER).some((t) => t.includes('done ok tag:steer')), 30_000);
  });

  it('an edit before the turn starts replaces the queued text; after that it is a new message', async () => {
    tg.pushUpdate(text(OWNER, '/queue followup'));
    await waitUntil(() => sent(OWNER).some((t) => t.includes('Queue mode set to followup')));
    tg.pushUpdate(text(OWNER, 'work [[bash:sleep 2]] tag:e0'));
    await waitUntil(() => mock.mainRequests().some((q) => q.lastText.includes('tag:e0')), 20_000);
    const id = nextId;
    tg.pushUpdate(text(OWNER, 'typo tag:e1'));
    await waitUntil(
      () =>
        gw.gw.services.store.db
          .prepare("SELECT 1 FROM messages WHERE text = 'typo tag:e1' AND state = 'queued'")
          .get() !== undefined,
    );
    tg.pushUpdate({
      edited_message: {
        ...text(OWNER, 'fixed tag:e2').message,
        message_id: id,
        edit_date: Math.floor(Date.now() / 1000),
      },
    });
    await waitUntil(() => sent(OWNER).some((t) => t.includes('ok tag:e2')), 20_000);
    expect(mock.requests.some((q) => q.lastText.includes('typo tag:e1'))).toBe(false);
    expect(sent(OWNER).some((t) => t.includes('tag:e1'))).toBe(false);
    // Its turn is over: a further edit is a new message with its own reply.
    tg.pushUpdate({
      edited_message: {
        ...text(OWNER, 'again tag:e3').message,
        message_id: id,
        edit_date: Math.floor(Date.now() / 1000) + 5,
      },
    });
    await waitUntil(() => sent(OWNER).some((t) => t.includes('ok tag:e3')), 20_000);
    expect(
      gw.gw.services.store.db
        .prepare("SELECT COUNT(*) AS n FROM messages WHERE channel = 'telegram' AND text LIKE '%tag:e%'")
        .get(),
    ).toEqual({ n: 3 });
  });
});

describe('a channel with a bad token', () => {
  it('fails alone: the web channel keeps working and status names the problem', async () => {
    const fake = await startFakeTelegram();
    fake.script('getMe', () => ({ status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } }));
    const bad = await startInProcess({
      agent: agentConfig(mock.url, tempDir('chome')),
      channels: { telegram: { token: '1:bad', apiRoot: fake.apiRoot, owners: [OWNER] } },
    });
    try {
      const status = (await (await bad.api('GET', '/api/status')).json()) as any;
      const tgStatus = status.channels.find((c: { name: string }) => c.name === 'telegram');
      expect(tgStatus.state).toBe('error');
      expect(tgStatus.detail).toMatch(/token/i);
      expect(tgStatus.detail).not.toContain('1:bad');
      const w = bad.watch('still');
      await w.ready;
      const m = await bad.post('still', 'web works tag:ww');
      expect((await w.waitReply(m.messageId)).data.text).toBe('ok tag:ww');
    } finally {
      await bad.stop();
      await fake.close();
    }
  });
});
