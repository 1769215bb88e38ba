/**
 * The web page in a real browser (Debian's chromium through playwright-core), against a real
 * gateway on the real CLI and the mock Messages API.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockApi, type MockApi } from '../support/mock-anthropic.js';
import { tempDir } from '../support/claude-rig.js';
import { agentConfig, startInProcess } from '../support/gateway-rig.js';
import { WhatsAppChannel } from '../../src/channels/whatsapp/channel.js';
import { whatsappSchema } from '../../src/config/channels-schema.js';
import { silentLogger } from '../../src/ops/logger.js';
import { startFakeWhatsApp } from '../support/fake-whatsapp.js';

const CHROMIUM = process.env.RUDDER_CHROMIUM ?? '/usr/bin/chromium';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let browser: Browser;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this).`);
  mock = await startMockApi();
  gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await mock?.close();
});

describe('web page (real browser)', () => {
  it('loads, sends a message, streams the reply, and stops a slow turn', async () => {
    const page = await browser.newPage();
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    await page.goto(`${gw.ep.base}/#token=${gw.ep.token}`);
    // A fresh install has no conversation: the page creates one.
    await page.getByTestId('conversations').locator('li').first().waitFor();
    expect(page.url()).not.toContain('token='); // the token leaves the address bar

    await page.getByTestId('input').fill('hello from the page [[slow:1500]] tag:w1');
    await page.getByTestId('send').click();
    await page.getByTestId('streaming').first().waitFor({ timeout: 10_000 });
    const reply = page.getByTestId('reply').last();
    await reply.waitFor({ timeout: 15_000 });
    expect(await reply.textContent()).toMatch(/^ok tag:w1 streaming/);
    await expect.poll(() => page.getByTestId('acks').first().textContent()).toContain('👀');

    await page.getByTestId('input').fill('long job [[bash:echo start; sleep 30]] tag:w2');
    await page.getByTestId('input').press('Enter');
    await expect.poll(() => page.getByTestId('status').textContent(), { timeout: 10_000 }).toContain('running Bash');
    const t0 = Date.now();
    await page.getByTestId('stop').click();
    await expect.poll(() => page.getByTestId('user-message').nth(1).locator('.acks').textContent(), { timeout: 3000 }).toContain('⏹');
    expect(Date.now() - t0).toBeLessThan(3000);
    await expect.poll(() => page.getByTestId('notice').last().textContent(), { timeout: 5000 }).toContain('Stopped the running turn');
    // The page runs under its CSP (inline script and style by nonce) without tripping it.
    expect(cspViolations).toEqual([]);
    await page.close();
  });

  it('cannot be framed by another page (no clickjacking of Approve or Stop)', async () => {
    // Another local page, on another port: it frames the logged-in page.
    const attacker = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><iframe id="f" src="${gw.ep.base}/" width="800" height="600"></iframe>`);
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    const page = await browser.newPage();
    try {
      // The page itself keeps the token where the frame would find it.
      await page.goto(`${gw.ep.base}/#token=${gw.ep.token}`);
      await page.getByTestId('conversations').locator('li').first().waitFor();
      const blocked = page.waitForEvent('console', { predicate: (m) => /frame-ancestors/.test(m.text()), timeout: 10_000 });
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      await blocked;
      const frame = page.frames().find((f) => f !== page.mainFrame())!;
      expect(await frame.locator('[data-testid="stop"]').count()).toBe(0);
      expect(await frame.locator('[data-testid="send"]').count()).toBe(0);
    } finally {
      await page.close();
      await new Promise((r) => attacker.close(r));
    }
  });

  it('shows Approve/Deny for a permission request in relay mode', async () => {
    const relay = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome'), { permissionMode: 'relay' }) });
    try {
      const page = await browser.newPage();
      await page.goto(`${relay.ep.base}/#token=${relay.ep.token}`);
      await page.getByTestId('conversations').locator('li').first().waitFor();
      const marker = `${tempDir('perm')}/from-page`;
      await page.getByTestId('input').fill(`[[bash:touch ${marker}]]`);
      await page.getByTestId('send').click();
      await page.getByTestId('permission-allow').click({ timeout: 15_000 });
      await page.getByTestId('reply').last().waitFor({ timeout: 15_000 });
      expect(fs.existsSync(marker)).toBe(true);
      await page.close();
    } finally {
      await relay.stop();
    }
  });

  it('shows the WhatsApp pairing QR code until the account is linked', async () => {
    const fake = await startFakeWhatsApp();
    const config = whatsappSchema.parse({ printQr: false, webSocketUrl: fake.webSocketUrl });
    const wa = new WhatsAppChannel({ config, dataDir: tempDir('wa'), logger: silentLogger(), socketFactory: (c) => fake.factory(c) });
    const withWa = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) }, { extraChannels: [wa] });
    try {
      const page = await browser.newPage();
      await page.goto(`${withWa.ep.base}/#token=${withWa.ep.token}`);
      await page.getByTestId('conversations').locator('li').first().waitFor();
      fake.socket().ev.emit('connection.update', { qr: '2@fake-qr-payload' });
      const img = page.getByTestId('pairing').locator('img');
      await img.waitFor({ timeout: 10_000 });
      expect(await img.getAttribute('alt')).toBe('whatsapp pairing code');
      expect(await img.evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
      fake.socket().ev.emit('creds.update', { me: { id: '4915550000000:1@s.whatsapp.net', name: 'Rudder' } });
      fake.socket().ev.emit('connection.update', { connection: 'open' });
      await page.getByTestId('pairing').waitFor({ state: 'hidden', timeout: 10_000 });
      await page.close();
    } finally {
      await withWa.stop();
      await fake.close();
    }
  });
});
