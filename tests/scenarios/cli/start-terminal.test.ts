/**
 * What `rudder start` prints on a real terminal (a tmux pane): each start warning once (the config
 * in the agent's working directory, an ANTHROPIC_/CLAUDE_ variable the agent will not get, with the
 * passEnv line that passes it), never again as a log line, then the startup line and the page's QR
 * code for a phone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tmux } from '../../../src/agents/tmux/pane/tmux.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, CLI, writeConfig } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { killServers, privateSocket } from '../../support/tmux-rig.js';

const socket = privateSocket('start');
let mock: MockApi;

beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await killServers([socket]);
  await mock.close();
});

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('rudder start on a terminal', () => {
  it('says each warning once, then the startup line and a QR code of the address a phone opens', async () => {
    const cwd = tempDir('start');
    const home = tempDir('rhome');
    writeConfig(cwd, {
      agent: agentConfig(mock.url, tempDir('chome')),
      web: { port: 0, allowedHosts: ['rudder.example.net'] },
    });
    const tmux = new Tmux({ name: socket });
    await tmux.newSession({
      name: 'start',
      width: 300,
      height: 150,
      cwd,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? home,
        TERM: 'xterm-256color',
        LANG: 'C.UTF-8',
        RUDDER_HOME: home,
        // An ANTHROPIC_/CLAUDE_ variable that is not among those passed by default: the agent does not get it.
        CLAUDE_CODE_DISABLE_AUTOUPDATER: '1',
      },
      argv: [process.execPath, CLI, 'start'],
    });
    try {
      await waitUntil(async () => (await tmux.capturePane('start')).includes('Scan to open'), 60_000);
      const screen = await tmux.capturePane('start');
      if (process.env.SHOW_SCREEN) console.log(screen);
      const configFile = fs.realpathSync(path.join(cwd, 'rudder.config.json'));
      expect(count(screen, "inside the agent's working directory")).toBe(1);
      expect(count(screen, 'CLAUDE_CODE_DISABLE_AUTOUPDATER is set in Rudder')).toBe(1);
      expect(screen).toContain('"passEnv": ["CLAUDE_CODE_DISABLE_AUTOUPDATER"]');
      expect(screen).toMatch(new RegExp(`warning: \\S*${path.basename(configFile)} is inside`));
      expect(count(screen, 'Rudder is running. Open http://127.0.0.1:')).toBe(1);
      // The page behind the reverse proxy: its name, with the token in the code and not in the caption.
      expect(screen).toContain('Scan to open https://rudder.example.net/#token=… on a phone');
      const token = fs.readFileSync(path.join(home, 'web-token'), 'utf8').trim();
      expect(count(screen, token)).toBe(1);
      const lines = screen.split('\n');
      const running = lines.findIndex((l) => l.includes('Rudder is running'));
      const caption = lines.findIndex((l) => l.includes('Scan to open'));
      // The code is drawn between the startup line and its caption (or right above the caption).
      const art = lines.filter((l) => /[▀▄█]/u.test(l));
      expect(art.length).toBeGreaterThan(10);
      expect(running).toBeGreaterThanOrEqual(0);
      expect(caption).toBeGreaterThan(running);
    } finally {
      await tmux.sendKeys('start', 'C-c');
      await waitUntil(async () => (await tmux.paneInfo('start')).dead, 30_000).catch(() => undefined);
    }
  });
});
