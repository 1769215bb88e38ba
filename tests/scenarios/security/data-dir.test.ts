/**
 * The data dir is the user's alone: `rudder start` refuses one that another user owns or others
 * can write (exit 2, before reading its web-token), and leaves every file in it 0600 and every
 * directory 0700: store, WAL, log, token, lock, attachments, the WhatsApp session. The agent
 * itself still writes the project with the user's umask.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { startFakeWhatsApp } from '../../support/fake-whatsapp.js';
import { agentConfig, CLI, startChild, writeConfig } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

const OTHER_UID = 4242;
const PLANTED = 'planted-token-planted-token-planted-token';

/** Runs `rudder start` to its exit (a start that runs instead is killed at the timeout and fails the test). */
function start(home: string) {
  const cwd = tempDir('ddcwd');
  writeConfig(cwd, { web: { port: 0 } });
  return spawnSync(process.execPath, [CLI, 'start'], {
    cwd,
    env: { ...process.env, RUDDER_HOME: home },
    encoding: 'utf8',
    timeout: 15_000,
  });
}

function expectNothingTouched(home: string, before: string[]) {
  expect(fs.readdirSync(home).sort()).toEqual(before);
  expect(fs.readFileSync(path.join(home, 'web-token'), 'utf8')).toBe(PLANTED);
}

function plantedHome(): string {
  const home = tempDir('ddhome');
  fs.writeFileSync(path.join(home, 'web-token'), PLANTED, { mode: 0o600 });
  return home;
}

describe('an unsafe data dir is refused before anything in it is read', () => {
  it('when another user owns it', () => {
    const home = plantedHome();
    fs.chownSync(home, OTHER_UID, OTHER_UID);
    const r = start(home);
    expect(r.stderr).toMatch(new RegExp(`${home} belongs to uid ${OTHER_UID}, not to you`));
    expect(r.stderr).toContain('RUDDER_HOME');
    expect(r.status).toBe(2);
    expect(r.stdout).not.toContain('Rudder is running');
    expectNothingTouched(home, ['web-token']);
  });

  it.each(['777', '770', '1777', '702'])('when others can write it (mode %s)', (mode) => {
    const home = plantedHome();
    fs.chmodSync(home, parseInt(mode, 8));
    const r = start(home);
    expect(r.stderr).toMatch(/can be written by other users/);
    expect(r.stderr).toMatch(/chmod go-w/);
    expect(r.status).toBe(2);
    expectNothingTouched(home, ['web-token']);
  });

  it('when a file in it belongs to another user', () => {
    const home = plantedHome();
    fs.chownSync(path.join(home, 'web-token'), OTHER_UID, OTHER_UID);
    const r = start(home);
    expect(r.stderr).toMatch(/web-token belongs to uid 4242/);
    expect(r.status).toBe(2);
    expectNothingTouched(home, ['web-token']);
  });
});

describe('file modes', () => {
  let mock: MockApi;
  let tg: FakeTelegram;
  beforeAll(async () => {
    mock = await startMockApi();
    tg = await startFakeTelegram();
  });
  afterAll(async () => {
    await tg?.close();
    await mock?.close();
  });

  it('leaves the data dir 0700 and every file in it 0600, while the agent keeps the user umask', async () => {
    // An older install: an open dir, a readable log and token.
    const home = tempDir('ddmodes');
    fs.chmodSync(home, 0o755);
    fs.writeFileSync(path.join(home, 'rudder.log'), '', { mode: 0o644 });
    fs.writeFileSync(path.join(home, 'web-token'), 'an-older-token-an-older-token-an-older-token\n', { mode: 0o644 });
    fs.chmodSync(path.join(home, 'web-token'), 0o644);
    const wa = await startFakeWhatsApp();
    const cwd = tempDir('ddagent');
    const gw = await startChild(
      {
        agent: agentConfig(mock.url, tempDir('chome'), { cwd }),
        channels: {
          telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [111], pollTimeoutSeconds: 1 },
          whatsapp: { webSocketUrl: wa.webSocketUrl, printQr: false, owners: ['4915550000001'] },
        },
      },
      { home },
    );
    try {
      tg.addFile('doc-1', Buffer.from('a private document'), 'documents/file_1.txt');
      tg.pushUpdate({
        message: {
          message_id: 1,
          date: Math.floor(Date.now() / 1000),
          chat: { id: 111, type: 'private', first_name: 'O' },
          from: { id: 111, is_bot: false, first_name: 'O' },
          caption: 'read this',
          document: { file_id: 'doc-1', file_unique_id: 'd1', file_name: 'notes.txt', file_size: 18 },
        },
      });
      await waitUntil(() => tg.callsOf('sendMessage').some((c) => Number(c.body.chat_id) === 111), 30_000);
      await waitUntil(() => fs.existsSync(path.join(home, 'whatsapp-auth')), 20_000);

      const w = gw.watch('modes');
      await w.ready;
      const made = path.join(cwd, 'made-by-agent.txt');
      const m = await gw.post('modes', `[[bash:touch ${made}]] tag:modes`);
      await w.waitReply(m.messageId);

      const entries: Array<{ p: string; mode: number; dir: boolean }> = [];
      const walk = (p: string) => {
        const st = fs.lstatSync(p);
        entries.push({ p, mode: st.mode & 0o777, dir: st.isDirectory() });
        if (st.isDirectory()) for (const n of fs.readdirSync(p)) walk(path.join(p, n));
      };
      walk(home);
      const names = entries.map((e) => path.relative(home, e.p));
      for (const f of [
        'rudder.db',
        'rudder.db-wal',
        'rudder.db-shm',
        'rudder.log',
        'web-token',
        'rudder.lock',
        'whatsapp-auth',
      ])
        expect(names).toContain(f);
      expect(names.some((n) => n.startsWith('attachments/telegram/') && n.endsWith('notes.txt'))).toBe(true);
      for (const e of entries)
        expect({ p: e.p, mode: e.mode.toString(8) }).toEqual({ p: e.p, mode: e.dir ? '700' : '600' });
      // The agent's own files follow the user's umask, not Rudder's private one.
      expect((fs.statSync(made).mode & 0o777).toString(8)).toBe((0o666 & ~process.umask()).toString(8));
    } finally {
      await gw.stop();
      await wa.close();
    }
  });
});
