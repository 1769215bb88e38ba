/**
 * What the page says of a running turn, in a real browser on a real gateway (real CLI, mock
 * Messages API), at phone and desktop size: while the gateway cannot be reached it does not claim
 * "Working" nor offer Stop, it says the state is unknown until it is back; and it does not say
 * "thinking" while the answer's text visibly streams.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launch, openApp, shot, useWebGateway } from '../../support/browser-rig.js';
import { send } from '../../support/chat-helpers.js';
import { type DropProxy, startDropProxy } from '../../support/drop-proxy.js';

const rig = useWebGateway();
let proxy: DropProxy;
let viaProxy: Browser;

beforeAll(async () => {
  proxy = await startDropProxy();
  viaProxy = await launch({ args: [`--proxy-server=${proxy.url}`, '--proxy-bypass-list=<-loopback>'] });
});
beforeEach(() => proxy.resume());
afterAll(async () => {
  await viaProxy?.close();
  await proxy?.close();
});

describe('a running turn while the gateway is away (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    it(`at ${size} size: says its state is unknown, without Stop, until the gateway is back`, async () => {
      const app = await openApp(viaProxy, rig.gw.ep, { size, conversation: `unknown-${size}` });
      const { page } = app;
      await send(page, `work a while [[bash:sleep 6]] tag:u${size}`);
      await page.getByTestId('tool-step').waitFor({ timeout: rig.budget });
      const running = page.getByTestId('running');
      const status = page.getByTestId('turn').last().getByTestId('turn-status');
      await page.getByTestId('stop').waitFor({ timeout: rig.budget });
      expect(await running.textContent()).toContain('Bash: sleep 6');

      proxy.drop();
      await page.getByTestId('connection').waitFor({ timeout: rig.budget });
      await expect.poll(() => running.getAttribute('data-unknown'), { timeout: rig.budget }).toBe('true');
      expect(await page.getByTestId('stop').count()).toBe(0);
      expect(await running.textContent()).toContain('unknown');
      expect(await status.textContent()).not.toContain('Working');
      expect(await status.textContent()).toContain('unknown');
      await shot(page, `state-unknown-${size}`);

      proxy.resume();
      await page.getByTestId('connection').waitFor({ state: 'detached', timeout: rig.budget + 10_000 });
      // After a tool the mock answers "done ok" (the tool result carries no tag).
      await page.getByTestId('turn').last().getByTestId('reply').waitFor({ timeout: rig.budget });
      await expect.poll(() => status.textContent(), { timeout: rig.budget }).toContain('Done');
      expect(await page.getByTestId('running').count()).toBe(0);
      expect(app.problems).toEqual([]);
      await app.close();
    });

    it(`at ${size} size: says "writing", not "thinking", while the answer streams`, async () => {
      const app = await openApp(rig.browser, rig.gw.ep, { size, conversation: `writing-${size}` });
      const { page } = app;
      await send(page, `talk slowly [[slow:5000]] tag:w${size}`);
      const streaming = page.getByTestId('streaming');
      await expect
        .poll(async () => ((await streaming.count()) ? ((await streaming.textContent()) ?? '') : '').length, {
          timeout: rig.budget,
        })
        .toBeGreaterThan(30);
      const line = (await page.getByTestId('running').textContent()) ?? '';
      const status = (await page.getByTestId('turn').last().getByTestId('turn-status').textContent()) ?? '';
      expect(line).toContain('writing');
      expect(line).not.toContain('thinking');
      expect(status).toContain('writing');
      expect(status).not.toContain('thinking');
      await page
        .getByTestId('reply')
        .filter({ hasText: `tag:w${size}` })
        .waitFor({ timeout: rig.budget });
      expect(app.problems).toEqual([]);
      await app.close();
    });
  }
});
