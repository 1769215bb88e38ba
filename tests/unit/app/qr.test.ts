/**
 * The page's QR code at start: drawn on a real terminal (a tmux pane), never into a pipe, and of
 * an address a phone can open, token included.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import qrcode from 'qrcode-terminal';
import { afterAll, describe, expect, it } from 'vitest';
import { Tmux } from '../../../src/agents/tmux/pane/tmux.js';
import { pageQr, phoneUrl } from '../../../src/app/qr.js';
import { waitUntil } from '../../support/claude-rig.js';
import { ROOT } from '../../support/gateway-rig.js';
import { killServers, privateSocket } from '../../support/tmux-rig.js';

const socket = privateSocket('qr');
afterAll(() => killServers([socket]));

const QR_JS = path.join(ROOT, 'dist/app/qr.js');
/** Prints what `rudder start` would print after its startup line, as the real process sees its stdout. */
const script = (url: string, hosts: string[]) =>
  `import(${JSON.stringify(QR_JS)}).then((m) => { process.stdout.write(m.pageQr({ url: ${JSON.stringify(url)}, ` +
  `allowedHosts: ${JSON.stringify(hosts)}, isTTY: Boolean(process.stdout.isTTY) }) ?? 'NO-QR\\n'); ` +
  `process.stdout.write('QR-DONE\\n'); setTimeout(() => {}, 60000); })`;

const artOf = (text: string) => {
  let art = '';
  qrcode.generate(text, { small: true }, (a) => (art = a));
  return art;
};

describe('the page QR code', () => {
  it('is drawn on a terminal, and encodes the page address with its token', async () => {
    const url = 'http://100.64.0.5:8787/#token=abc123secret';
    const tmux = new Tmux({ name: socket });
    await tmux.newSession({
      name: 'qr',
      width: 120,
      height: 60,
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', LANG: 'C.UTF-8' },
      argv: [process.execPath, '-e', script(url, [])],
    });
    await waitUntil(async () => (await tmux.capturePane('qr')).includes('QR-DONE'), 20_000);
    const screen = await tmux.capturePane('qr');
    const expected = artOf(url)
      .split('\n')
      .map((l) => l.trimEnd())
      .filter(Boolean);
    const lines = screen.split('\n').map((l) => l.trimEnd());
    const at = lines.indexOf(expected[0]!);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(lines.slice(at, at + expected.length)).toEqual(expected);
    expect(screen).toContain('Scan to open http://100.64.0.5:8787/#token=… on a phone');
    // The token is in the code, not in the caption.
    expect(screen).not.toContain('abc123secret');
  });

  it('is not written into a pipe', () => {
    const r = spawnSync(
      process.execPath,
      ['-e', script('http://100.64.0.5:8787/#token=t', []).replace('setTimeout(() => {}, 60000); ', '')],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(r.stdout).toBe('NO-QR\nQR-DONE\n');
  });

  it('shows an address a phone can open: the reverse proxy name for a loopback bind, or says why there is none', () => {
    expect(phoneUrl('http://127.0.0.1:8787/#token=t1', ['rudder.example.com'])).toEqual({
      url: 'https://rudder.example.com/#token=t1',
    });
    expect(phoneUrl('http://100.64.0.5:8787/#token=t2')).toEqual({ url: 'http://100.64.0.5:8787/#token=t2' });
    const none = pageQr({ url: 'http://127.0.0.1:8787/#token=t3', isTTY: true })!;
    expect(none).toMatch(/^No QR code for a phone: the page is on 127\.0\.0\.1:8787, which a phone cannot open/);
    expect(none).toContain('Reaching the page from a phone');
    expect(pageQr({ url: 'http://127.0.0.1:8787/#token=t3', allowedHosts: ['r.example.com'], isTTY: true })).toContain(
      artOf('https://r.example.com/#token=t3'),
    );
  });
});
