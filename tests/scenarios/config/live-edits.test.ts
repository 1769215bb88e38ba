/**
 * The config file sits in the agent's reach (the start directory is its default cwd), so a running
 * `rudder start` takes only keys that cannot widen what the agent may do from it: steering,
 * log.level and queue modes. An edit to claudeBin, permissionMode, env or stt is logged "restart to
 * apply" once and ignored; a file others can write is refused; a file inside agent.cwd is warned about.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_BIN, tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, CLI, startChild, writeConfig } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

describe('rudder start and its config file', () => {
  let mock: MockApi;
  beforeAll(async () => {
    mock = await startMockApi();
  });
  afterAll(async () => {
    await mock?.close();
  });

  it("ignores edits that widen the agent's reach until a restart, and applies steering and log.level", async () => {
    const cwd = tempDir('livecwd');
    const marker = path.join(tempDir('mark'), 'planted-bin-ran');
    const planted = path.join(tempDir('bin'), 'claude');
    fs.writeFileSync(planted, `#!/bin/sh\ntouch ${marker}\nexec ${CLAUDE_BIN} "$@"\n`, { mode: 0o755 });
    const base = { agent: agentConfig(mock.url, tempDir('chome')), log: { level: 'info' } };
    const gw = await startChild(base, { cwd, env: { RUDDER_LOG_LEVEL: '' } });
    try {
      // The config is in the start directory, which is the agent's cwd: said at start.
      expect(gw.output()).toMatch(/warning: .*rudder\.config\.json is inside the agent's working directory/);
      const logFile = path.join(gw.home, 'rudder.log');
      const cfg = JSON.parse(fs.readFileSync(gw.configFile, 'utf8'));
      cfg.agent.claudeBin = planted;
      cfg.agent.permissionMode = 'acceptEdits';
      cfg.agent.env.PLANTED = '1';
      cfg.stt = { command: planted, args: [] };
      cfg.steering = { enabled: false };
      cfg.log = { level: 'debug' };
      fs.writeFileSync(gw.configFile, JSON.stringify(cfg));

      // Steering is hot: the status says it is off now (and makes the gateway read the file).
      await waitUntil(
        async () => ((await (await gw.api('GET', '/api/status')).json()) as any).steering.on === false,
        10_000,
      );
      const w = gw.watch('after-edit');
      await w.ready;
      const m = await gw.post('after-edit', 'hello tag:live');
      expect((await w.waitReply(m.messageId)).data.text).toBe('ok tag:live');
      expect(fs.existsSync(marker)).toBe(false);
      // Saved again with steering back on: read again (steering follows), the same pending keys not reported again.
      fs.writeFileSync(gw.configFile, JSON.stringify({ ...cfg, steering: { enabled: true } }));
      await waitUntil(
        async () => ((await (await gw.api('GET', '/api/status')).json()) as any).steering.on === true,
        10_000,
      );
      await waitUntil(
        () => (fs.readFileSync(logFile, 'utf8').match(/"msg":"config reloaded"/g) ?? []).length === 2,
        10_000,
      );

      const lines = fs
        .readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, any>);
      const restart = lines.filter((l) => /restart to apply/.test(l.msg));
      expect(restart).toHaveLength(1);
      expect(restart[0]!.keys).toEqual(
        expect.arrayContaining(['agent.claudeBin', 'agent.permissionMode', 'agent.env.PLANTED', 'stt.command']),
      );
      expect(restart[0]!.keys).not.toContain('steering.enabled');
      // log.level is hot: debug lines appear from the first reload on, none before it.
      const reload = lines.findIndex((l) => l.msg === 'config reloaded');
      expect(lines.slice(0, reload).some((l) => l.level === 20)).toBe(false);
      expect(lines.slice(reload).some((l) => l.level === 20 && l.msg === 'web request')).toBe(true);
    } finally {
      await gw.stop();
    }
  });

  function startWith(prepare: (file: string, dir: string) => void) {
    const cwd = tempDir('cfgsafe');
    const file = writeConfig(cwd, { web: { port: 0 } });
    prepare(file, cwd);
    const home = tempDir('cfgsafehome');
    const r = spawnSync(process.execPath, [CLI, 'start'], {
      cwd,
      env: { ...process.env, RUDDER_HOME: home },
      encoding: 'utf8',
      timeout: 15_000,
    });
    return { ...r, home };
  }

  it.each<[string, (file: string, dir: string) => void, RegExp]>([
    [
      'others can write it',
      (f) => fs.chmodSync(f, 0o666),
      /rudder\.config\.json can be written by other users \(mode 0666\)/,
    ],
    ['its group can write it', (f) => fs.chmodSync(f, 0o664), /can be written by other users \(mode 0664\)/],
    ['another user owns it', (f) => fs.chownSync(f, 4242, 4242), /belongs to uid 4242/],
    ['others can replace it', (_f, d) => fs.chmodSync(d, 0o777), /could be replaced/],
  ])('refuses a config file when %s (exit 2, nothing started)', (_name, prepare, message) => {
    const r = startWith(prepare);
    expect(r.stderr).toMatch(message);
    expect(r.status).toBe(2);
    expect(r.stdout).not.toContain('Rudder is running');
    expect(fs.existsSync(path.join(r.home, 'rudder.db'))).toBe(false);
  });
});
