/**
 * A chat channel that cannot start blocks nothing: with the Bot API failing getMe (grammY retries
 * it for ever), `rudder start` still prints its startup line, serves the web page, delivers owed
 * replies, reports the channel as not started and takes SIGTERM, even in the middle of startup;
 * the channel connects by itself once the Bot API is back.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../../src/http/wire.js';
import { Store } from '../../../src/store/store.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, CLI, startChild, writeConfig } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

const OWNER = 111;
let mock: MockApi;
let tg: FakeTelegram;

beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock?.close();
});
beforeEach(async () => {
  tg = await startFakeTelegram();
  // The Bot API is down: getMe answers 502, which grammY retries without end.
  tg.script('getMe', () => ({ status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } }));
});
afterEach(async () => {
  await tg.close();
});

const telegram = () => ({ token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 });

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.on('close', (status) => resolve({ status, stdout }));
  });
}

describe('a channel that cannot start', () => {
  it('holds up nothing, is reported as not started, and connects once its platform is back', async () => {
    // A reply owed from before: delivery must not wait for Telegram.
    const home = tempDir('rhome');
    const store = new Store(path.join(home, 'rudder.db'));
    store.ensureConversation('web:owed', 'web', 'owed');
    const { row } = store.insertMessage({
      conversationId: 'web:owed',
      channel: 'web',
      platformMessageId: 'p1',
      senderId: 'owner',
      text: 'question',
      state: 'answered',
    });
    const owed = store.addOutbox({
      conversationId: 'web:owed',
      kind: 'reply',
      messageIds: [row.id],
      text: 'the owed answer',
    });
    await store.close();

    const gw = await startChild(
      {
        agent: agentConfig(mock.url, tempDir('chome')),
        channels: { telegram: telegram() },
        channelStartTimeoutSeconds: 1,
      },
      { home },
    );
    try {
      const owedWatch = gw.watch('owed', 0);
      await owedWatch.wait('reply', (d) => d.outboxId === owed.id);
      const w = gw.watch('web-meanwhile');
      await w.ready;
      const m = await gw.post('web-meanwhile', 'hello tag:meanwhile');
      expect((await w.waitReply(m.messageId)).data.text).toBe('ok tag:meanwhile');

      const status = (await (await gw.api('GET', '/api/status')).json()) as StatusReport;
      const t = status.channels.find((c) => c.name === 'telegram')!;
      expect(t.started).toBe(false);
      expect(t.error).toMatch(/not connected after 1 s; still trying/);
      expect(status.channels.find((c) => c.name === 'web')!.started).toBe(true);
      const human = await runCli(['status'], { RUDDER_HOME: home, RUDDER_URL: gw.ep.base });
      expect(human.stdout).toMatch(/Not started: telegram \(not connected after 1 s; still trying\)/);
      // doctor's model request goes to the mock, from a HOME of its own.
      const doctor = await runCli(['doctor'], {
        RUDDER_HOME: home,
        RUDDER_URL: gw.ep.base,
        HOME: tempDir('doctorhome'),
        ANTHROPIC_BASE_URL: mock.url,
        ANTHROPIC_API_KEY: 'sk-ant-test-key',
      });
      expect(doctor.stdout).toMatch(/! running channel telegram: not started: not connected after 1 s; still trying/);
      expect(tg.callsOf('getMe').length).toBeGreaterThan(1);

      // Back up: grammY's own retry gets through, and the channel works.
      tg.script('getMe', undefined);
      await waitUntil(
        async () =>
          ((await (await gw.api('GET', '/api/status')).json()) as StatusReport).channels.find(
            (c) => c.name === 'telegram',
          )!.started,
        30_000,
      );
      tg.pushUpdate({
        message: {
          message_id: 1,
          date: Math.floor(Date.now() / 1000),
          chat: { id: OWNER, type: 'private', first_name: 'O' },
          from: { id: OWNER, is_bot: false, first_name: 'O' },
          text: 'hi tag:tgback',
        },
      });
      await waitUntil(
        () => tg.callsOf('sendMessage').some((c) => String(c.body.text).includes('ok tag:tgback')),
        30_000,
      );

      gw.child.kill('SIGTERM');
      await new Promise((r) => gw.child.once('exit', r));
      expect(gw.child.exitCode).toBe(0);
    } finally {
      await gw.stop();
    }
  });

  it('SIGTERM during startup, while the channel still hangs, stops the gateway cleanly', async () => {
    const home = tempDir('rhome');
    const cwd = tempDir('rcwd');
    writeConfig(cwd, {
      agent: agentConfig(mock.url, tempDir('chome')),
      channels: { telegram: telegram() },
      channelStartTimeoutSeconds: 120,
      web: { port: 0 },
    });
    const child = spawn(process.execPath, [CLI, 'start'], {
      cwd,
      env: { ...process.env, RUDDER_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    // The gateway is waiting on Telegram: getMe keeps failing.
    await waitUntil(() => tg.callsOf('getMe').length >= 3, 20_000);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    expect(child.signalCode).toBeNull();
    expect(child.exitCode).toBe(0);
    expect(out).not.toContain('Rudder is running');
    const log = (await import('node:fs')).readFileSync(path.join(home, 'rudder.log'), 'utf8');
    expect(log).toContain('"msg":"stopped"');
  });
});
