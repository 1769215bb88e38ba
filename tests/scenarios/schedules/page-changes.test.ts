/**
 * The Schedules view and the header's Changes button, in a real browser on a real gateway: with the Schedules view
 * open, Changes shows the conversation's changes in its place (also when the Changes view was open under it), and
 * the button reads as not pressed while the Schedules view covers it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openApp } from '../../support/browser-rig.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let browser: Awaited<ReturnType<typeof launch>>;
let gw: Awaited<ReturnType<typeof startInProcess>>;

beforeAll(async () => {
  mock = await startMockApi();
  gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) });
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await mock?.close();
});

describe('the Schedules view and the Changes button (real browser)', () => {
  it('desktop: Changes pressed over the Schedules view shows the changes, twice in a row', async () => {
    const app = await openApp(browser, gw.ep, { conversation: 'sc-desktop' });
    try {
      const { page } = app;
      const toggle = page.getByTestId('changes-toggle');
      for (const round of [1, 2]) {
        await page.getByTestId('open-schedules').click();
        await page.getByTestId('schedules').waitFor();
        expect([round, await toggle.getAttribute('aria-pressed')]).toEqual([round, 'false']);
        await toggle.click();
        await page.getByTestId('schedules').waitFor({ state: 'detached' });
        await page.getByTestId('changes').waitFor();
        expect([round, await toggle.getAttribute('aria-pressed')]).toEqual([round, 'true']);
      }
      expect(app.problems).toEqual([]);
    } finally {
      await app.close();
    }
  }, 120_000);
});
