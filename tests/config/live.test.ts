/**
 * The config file sits in the agent's reach (the start directory is its default cwd), so a running
 * gateway takes only keys that cannot widen what the agent may do from it: steering, log.level and
 * queue modes. An edit to claudeBin, permissionMode, env or stt is logged "restart to apply" once
 * and ignored; a file others can write is refused; a file inside agent.cwd is warned about.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeHot } from '../../src/config/hot.js';
import { LiveConfig, parseConfig } from '../../src/config/load.js';
import { CLAUDE_BIN, tempDir, waitUntil } from '../support/claude-rig.js';
import { agentConfig, CLI, startChild, writeConfig } from '../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../support/mock-anthropic.js';

describe('hot keys', () => {
  it("takes steering, log.level and a running channel's queueMode; reports every other changed key", () => {
    const running = parseConfig({ channels: { telegram: { token: 't', owners: [1] } } });
    const file = parseConfig({
      steering: { enabled: false, mode: 'collect' },
      log: { level: 'debug' },
      agent: {
        claudeBin: '/tmp/evil',
        permissionMode: 'bypassPermissions',
        env: { NODE_OPTIONS: '--require /tmp/x.js' },
      },
      stt: { command: '/tmp/evil', args: [] },
      channels: {
        telegram: { token: 't', owners: [1, 2], queueMode: 'followup' },
        discord: { token: 'd', queueMode: 'steer' },
      },
      web: { port: 1 },
    });
    const m = mergeHot(running, file);
    expect(m.config.steering).toEqual(file.steering);
    expect(m.config.log.level).toBe('debug');
    expect(m.config.channels.telegram?.queueMode).toBe('followup');
    expect(m.config.agent).toEqual(running.agent);
    expect(m.config.stt).toBeUndefined();
    expect(m.config.channels.telegram?.owners).toEqual(['1']);
    expect(m.config.channels.discord).toBeUndefined();
    expect(m.config.web).toEqual(running.web);
    expect(m.applied.sort()).toEqual(['channels.telegram.queueMode', 'log.level', 'steering.enabled', 'steering.mode']);
    expect(m.pending).toEqual(
      expect.arrayContaining([
        'agent.claudeBin',
        'agent.permissionMode',
        'agent.env.NODE_OPTIONS',
        'stt.command',
        'channels.telegram.owners',
        'channels.discord.queueMode',
        'channels.discord.token',
        'web.port',
      ]),
    );
    expect(m.pending).not.toContain('steering.mode');
  });

  it('reports a pending key once per value, and refuses a file others can write', () => {
    const dir = tempDir('live');
    const file = writeConfig(dir, {});
    const pending: string[][] = [];
    const rejected: string[] = [];
    const live = new LiveConfig(
      file,
      parseConfig({}),
      { pending: (k) => pending.push(k), rejected: (e) => rejected.push(e.message) },
      0,
    );
    // Each edit gets its own mtime, a second after the last: the file is re-read only when it moves.
    let edits = 0;
    const edit = (c: Record<string, unknown>) => {
      writeConfig(dir, c);
      const t = new Date(Date.now() + ++edits * 1000);
      fs.utimesSync(file, t, t);
      return live.current();
    };
    edit({ agent: { permissionMode: 'bypassPermissions' } });
    edit({ agent: { permissionMode: 'bypassPermissions' }, steering: { queueCap: 5 } });
    expect(pending).toEqual([['agent.permissionMode']]);
    edit({ agent: { permissionMode: 'acceptEdits' } });
    edit({});
    edit({ agent: { permissionMode: 'acceptEdits' } });
    expect(pending).toEqual([['agent.permissionMode'], ['agent.permissionMode'], ['agent.permissionMode']]);
    expect(live.current().agent.permissionMode).toBe('relay');

    fs.chmodSync(file, 0o666);
    expect(edit({ steering: { enabled: false } }).steering.enabled).toBe(true);
    expect(rejected.at(-1)).toMatch(/can be written by other users/);
    fs.chmodSync(file, 0o644);
    expect(edit({ steering: { enabled: false } }).steering.enabled).toBe(false);
  });

  it("sees a save that kept the file's mtime (a tool that restores it, a coarse clock)", () => {
    const dir = tempDir('live-stamp');
    const file = writeConfig(dir, { steering: { enabled: true } });
    const kept = new Date(Date.now() - 60_000);
    fs.utimesSync(file, kept, kept);
    const keptMs = fs.statSync(file).mtimeMs;
    const live = new LiveConfig(file, parseConfig({}), {}, 0);
    expect(live.current().steering.enabled).toBe(true);
    writeConfig(dir, { steering: { enabled: false, queueCap: 7 } });
    fs.utimesSync(file, kept, kept);
    expect(fs.statSync(file).mtimeMs).toBe(keptMs);
    expect(live.current().steering.enabled).toBe(false);
  });
});

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
