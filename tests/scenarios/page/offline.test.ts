/**
 * Nothing written is lost, in a real browser on a real gateway (real CLI, mock Messages API), at
 * phone and desktop size: messages written while the gateway cannot be reached (a proxy that cuts
 * every connection, like a phone losing its network) wait on the device, survive a reload with the
 * draft, and go out by themselves once it is back; one whose answer was lost on the way is sent
 * again with its clientMessageId and not taken twice; one the gateway refuses offers Retry, Edit
 * and Delete. The mock's request log shows each message reached the model once.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launch, openApp, shot, useWebGateway } from '../../support/browser-rig.js';
import { send } from '../../support/chat-helpers.js';
import { type DropProxy, startDropProxy } from '../../support/drop-proxy.js';
import { wrappedCopies } from '../../support/mock-anthropic.js';

const rig = useWebGateway();
let proxy: DropProxy;
let viaProxy: Browser;

beforeAll(async () => {
  proxy = await startDropProxy();
  viaProxy = await launch({ args: [`--proxy-server=${proxy.url}`, '--proxy-bypass-list=<-loopback>'] });
});
// A test that failed while the network was cut leaves it cut: the next one starts with it back.
beforeEach(() => proxy.resume());
afterAll(async () => {
  await viaProxy?.close();
  await proxy?.close();
});

/** The model was handed the message once: one turn took it, no request carries two copies, the store holds one. */
function reachedOnce(conv: string, tag: string): void {
  const main = rig.mock.mainRequests();
  expect([tag, main.filter((r) => r.lastText.includes(tag)).length]).toEqual([tag, 1]);
  expect([tag, Math.max(...main.map((r) => wrappedCopies(r, tag)))]).toEqual([tag, 1]);
  const rows = rig.gw.gw.services.store.recentMessages(`web:${conv}`).filter((m) => m.text.includes(tag));
  expect([tag, rows.length]).toEqual([tag, 1]);
}

const unsent = (page: Page) => page.locator('[data-testid="queued-message"][data-unsent]');

describe('offline and failed sends (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    it(`at ${size} size: keeps what was written offline through a reload and sends it once when back`, async () => {
      const conv = `off-${size}`;
      const app = await openApp(viaProxy, rig.gw.ep, { size, conversation: conv });
      const { page } = app;
      await send(page, 'while online tag:on');
      await page.getByTestId('reply').filter({ hasText: 'ok tag:on' }).waitFor({ timeout: rig.budget });
      await page.evaluate('navigator.serviceWorker.ready.then(() => true)');

      proxy.drop();
      await page.getByTestId('connection').waitFor({ timeout: rig.budget });
      const one = `written offline, one tag:${size}1`;
      const two = `written offline, two tag:${size}2`;
      await send(page, one);
      await send(page, two);
      await expect.poll(() => unsent(page).count(), { timeout: rig.budget }).toBe(2);
      const first = unsent(page).first();
      expect(await first.getAttribute('data-unsent')).toBe('offline');
      for (const id of ['retry', 'edit-unsent', 'delete-unsent']) expect(await first.getByTestId(id).count()).toBe(1);
      await page.getByTestId('input').fill('a half-written thought');
      await shot(page, `unsent-${size}`);

      // A reload while the gateway is still away (the service worker's shell): both are there, and the draft.
      await page.reload();
      await expect.poll(() => unsent(page).count(), { timeout: rig.budget }).toBe(2);
      expect(await unsent(page).allTextContents()).toEqual([
        expect.stringContaining(one),
        expect.stringContaining(two),
      ]);
      expect(await page.getByTestId('input').inputValue()).toBe('a half-written thought');
      expect(rig.mock.mainRequests().filter((r) => r.lastText.includes(`tag:${size}1`))).toHaveLength(0);

      // Back: they go out by themselves, in order, once each.
      proxy.resume();
      await page.getByTestId('connection').waitFor({ state: 'detached', timeout: rig.budget + 10_000 });
      await expect.poll(() => unsent(page).count(), { timeout: rig.budget }).toBe(0);
      await page
        .getByTestId('reply')
        .filter({ hasText: `tag:${size}2` })
        .waitFor({ timeout: rig.budget });
      await expect
        .poll(() => page.getByTestId('user-message').filter({ hasText: 'written offline' }).count(), {
          timeout: rig.budget,
        })
        .toBe(2);
      reachedOnce(conv, `tag:${size}1`);
      reachedOnce(conv, `tag:${size}2`);
      const texts = rig.gw.gw.services.store.recentMessages(`web:${conv}`).map((m) => m.text);
      expect(texts.indexOf(one)).toBeLessThan(texts.indexOf(two));
      expect(await page.evaluate<string | null>("localStorage.getItem('rudder-outbox')")).toBeNull();
      expect(await page.getByTestId('input').inputValue()).toBe('a half-written thought');
      expect(app.problems).toEqual([]);
      await app.close();
    });

    it(`at ${size} size: a message whose answer was lost is sent again and taken once`, async () => {
      const conv = `lost-${size}`;
      const app = await openApp(rig.browser, rig.gw.ep, { size, conversation: conv, serviceWorkers: 'block' });
      const { page } = app;
      await page.getByTestId('input').waitFor({ timeout: rig.budget });
      // The gateway gets the POST and accepts it; its answer never reaches the page.
      let swallowed = 0;
      const ids: string[] = [];
      await app.context.route('**/api/conversations/*/messages', async (route) => {
        if (route.request().method() !== 'POST') return route.fallback();
        ids.push((route.request().postDataJSON() as { clientMessageId: string }).clientMessageId);
        if (swallowed) return route.fallback();
        swallowed++;
        const res = await route.fetch();
        expect(res.status()).toBe(202);
        await route.abort('connectionreset');
      });
      const tag = `tag:lost${size}`;
      await send(page, `the answer to this gets lost ${tag}`);
      await page
        .getByTestId('reply')
        .filter({ hasText: `ok ${tag}` })
        .waitFor({ timeout: rig.budget });
      await expect.poll(() => unsent(page).count(), { timeout: rig.budget }).toBe(0);
      await expect
        .poll(() => page.getByTestId('user-message').filter({ hasText: tag }).count(), { timeout: rig.budget })
        .toBe(1);
      // Sent twice with the same client id: the gateway answered the second "duplicate".
      expect(swallowed).toBe(1);
      expect(ids).toHaveLength(2);
      expect(ids[1]).toBe(ids[0]);
      reachedOnce(conv, tag);
      // The history shows it accepted before the resend's answer lands; the device lets go of it at that answer.
      await expect
        .poll(() => page.evaluate<string | null>("localStorage.getItem('rudder-outbox')"), { timeout: rig.budget })
        .toBeNull();
      expect(app.problems).toEqual([]);
      await app.close();
    });

    it(`at ${size} size: a message the gateway refuses offers Retry, Edit and Delete`, async () => {
      const conv = `refused-${size}`;
      const app = await openApp(rig.browser, rig.gw.ep, { size, conversation: conv });
      const { page } = app;
      await page.getByTestId('input').waitFor({ timeout: rig.budget });
      // Over the gateway's 100 KB: a 400 that names the limit.
      const big = `${'€'.repeat(35_000)} tag:big${size}`;
      await send(page, big);
      const failed = page.locator('[data-testid="queued-message"][data-unsent="failed"]');
      await failed.waitFor({ timeout: rig.budget });
      expect(await failed.getByTestId('wait-text').textContent()).toContain('100 KB');
      await failed.getByTestId('retry').click();
      await expect.poll(() => failed.getAttribute('data-state'), { timeout: rig.budget }).toBe('failed');
      // Edit: the text goes back into the input to be cut down; the failed copy goes.
      await failed.getByTestId('edit-unsent').click();
      await failed.waitFor({ state: 'detached', timeout: rig.budget });
      expect(await page.getByTestId('input').inputValue()).toBe(big);
      await page.getByTestId('input').fill(`cut down tag:small${size}`);
      await page.getByTestId('send').click();
      await page
        .getByTestId('reply')
        .filter({ hasText: `ok tag:small${size}` })
        .waitFor({ timeout: rig.budget });

      // Delete: gone, and gone after a reload.
      await send(page, big);
      await failed.waitFor({ timeout: rig.budget });
      await failed.getByTestId('delete-unsent').click();
      await failed.waitFor({ state: 'detached', timeout: rig.budget });
      await page.reload();
      await page
        .getByTestId('reply')
        .filter({ hasText: `ok tag:small${size}` })
        .waitFor({ timeout: rig.budget });
      expect(await unsent(page).count()).toBe(0);
      expect(rig.mock.mainRequests().filter((r) => r.lastUserText.includes(`tag:big${size}`))).toHaveLength(0);
      reachedOnce(conv, `tag:small${size}`);
      expect(app.problems).toEqual([]);
      await app.close();
    });
  }
});
