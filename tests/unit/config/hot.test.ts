/**
 * The keys a running gateway takes from an edited config file (config/hot.ts, LiveConfig): steering,
 * log.level and queue modes; every other changed key is reported once as pending, and a file others
 * can write is refused.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mergeHot } from '../../../src/config/hot.js';
import { LiveConfig, parseConfig } from '../../../src/config/load.js';
import { tempDir } from '../../support/claude-rig.js';
import { writeConfig } from '../../support/gateway-rig.js';

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
