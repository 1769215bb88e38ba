/**
 * A chat channel waiting to be linked shows its pairing code in the web app (WhatsApp against the
 * fake of its socket), until the account is linked.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WhatsAppChannel } from '../../../src/channels/whatsapp/channel.js';
import { whatsappSchema } from '../../../src/config/channels-schema.js';
import { silentLogger } from '../../../src/ops/logger.js';
import { launch, openApp } from '../../support/browser-rig.js';
import { tempDir } from '../../support/claude-rig.js';
import { startFakeWhatsApp } from '../../support/fake-whatsapp.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let browser: Browser;

beforeAll(async () => {
  mock = await startMockApi();
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await mock?.close();
});

describe('channel pairing in the web app', () => {
  it('shows the WhatsApp pairing QR code until the account is linked', async () => {
    const fake = await startFakeWhatsApp();
    const config = whatsappSchema.parse({ printQr: false, webSocketUrl: fake.webSocketUrl });
    const wa = new WhatsAppChannel({
      config,
      dataDir: tempDir('wa'),
      logger: silentLogger(),
      socketFactory: (c) => fake.factory(c),
    });
    const gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) }, { extraChannels: [wa] });
    try {
      const app = await openApp(browser, gw.ep);
      const { page } = app;
      await page.getByTestId('conversations').locator('li').first().waitFor();
      fake.socket().ev.emit('connection.update', { qr: '2@fake-qr-payload' });
      const img = page.getByTestId('pairing').locator('img');
      await img.waitFor({ timeout: 10_000 });
      expect(await img.getAttribute('alt')).toBe('whatsapp pairing code');
      expect(await img.evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
      fake.socket().ev.emit('creds.update', { me: { id: '4915550000000:1@s.whatsapp.net', name: 'Rudder' } });
      fake.socket().ev.emit('connection.update', { connection: 'open' });
      await page.getByTestId('pairing').waitFor({ state: 'hidden', timeout: 10_000 });
      expect(app.problems).toEqual([]);
      await app.close();
    } finally {
      await gw.stop();
      await fake.close();
    }
  });
});
