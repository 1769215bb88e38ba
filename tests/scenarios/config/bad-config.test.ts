/** `rudder start` with a bad config: a clear error naming the key, exit code 2, nothing started. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { tempDir } from '../../support/claude-rig.js';
import { CLI, startChild } from '../../support/gateway-rig.js';
import { rawRequest } from '../../support/raw-http.js';

function start(config: string | undefined) {
  const cwd = tempDir('cfg');
  const home = tempDir('cfghome');
  if (config !== undefined) fs.writeFileSync(path.join(cwd, 'rudder.config.json'), config);
  const r = spawnSync(process.execPath, [CLI, 'start'], {
    cwd,
    env: { ...process.env, RUDDER_HOME: home },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { ...r, home };
}

describe('rudder start with a bad config', () => {
  it.each([
    ['{"agent": {"permissionMod": "relay"}}', /agent\.permissionMod: unknown key/],
    ['{"steering": {"maxLive": "two"}}', /steering\.maxLive: Invalid input: expected number, received string/],
    ['{"steering": {"maxLive": -1}}', /steering\.maxLive: Too small/],
    ['{"agent": {"permissionMode": "yolo"}}', /agent\.permissionMode: Invalid option/],
    ['{"web": {"port": 70000}}', /web\.port: Too big/],
    ['{"fallback": {"model": "x"}}', /fallback\.baseURL: Invalid input/],
    ['{not json', /not valid JSON/],
  ])('%s', (config, message) => {
    const r = start(config);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).not.toContain('Rudder is running');
    // Nothing started: no store was created.
    expect(fs.existsSync(path.join(r.home, 'rudder.db'))).toBe(false);
  });

  it('reports an unreadable config file', () => {
    const cwd = tempDir('cfg');
    fs.mkdirSync(path.join(cwd, 'rudder.config.json')); // a directory where the file should be
    const r = spawnSync(process.execPath, [CLI, 'start'], {
      cwd,
      env: { ...process.env, RUDDER_HOME: tempDir('h') },
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/CONFIG_UNREADABLE|could not be read/);
  });
});

describe('web.host off loopback', () => {
  it('is refused without web.exposed, naming the key (exit 2)', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'myhost.lan']) {
      const r = start(JSON.stringify({ web: { host, port: 0 } }));
      expect(r.stderr).toMatch(
        /web\.exposed: web\.host .* is not a loopback address: .*plain HTTP.*Set web\.exposed to true/,
      );
      expect(r.status).toBe(2);
      expect(fs.existsSync(path.join(r.home, 'rudder.db'))).toBe(false);
    }
  });

  it('with web.exposed, binds and warns what that exposes; the Host check still holds', async () => {
    const gw = await startChild({ web: { host: '0.0.0.0', exposed: true }, agent: { claudeBin: '/bin/false' } });
    try {
      expect(gw.output()).toMatch(
        new RegExp(
          String.raw`warning: web\.exposed: the page and API are served on 0\.0\.0\.0:\d+ over plain HTTP` +
            String.raw`.*HTTPS reverse proxy or a private network.*web\.allowedHosts`,
        ),
      );
      const port = new URL(gw.ep.base.replace('0.0.0.0', '127.0.0.1')).port;
      const ok = await rawRequest(`http://127.0.0.1:${port}`, { target: '/healthz' });
      expect(ok.status).toBe(200);
      const rebound = await rawRequest(`http://127.0.0.1:${port}`, {
        target: '/healthz',
        headers: { host: `attacker.example:${port}` },
      });
      expect(rebound.status).toBe(421);
    } finally {
      await gw.stop();
    }
  });

  it('accepts loopback hosts without web.exposed', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2'])
      expect(parseConfig({ web: { host } }).web.host).toBe(host);
    expect(() => parseConfig({ web: { allowedHosts: ['https://x.example/'] } })).toThrow(
      /web\.allowedHosts\[0\]: must be a host name/,
    );
  });
});
