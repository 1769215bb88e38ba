/**
 * The ⋯ menu is whole when it takes the focus: pressed before the browser said what notifications it allows (the
 * gateway's answer about push held back here, as a slow network holds it), it opens without their item and keeps
 * that list while it is open, so End stays on the last item when the answer comes; opened again, it has the item.
 * A real browser at 1280×800 (notifications allowed, as a person who allowed them has) on a real gateway (real CLI,
 * mock Messages API).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openApp, useWebGateway } from '../../support/browser-rig.js';
import { focused } from '../../support/chat-helpers.js';

const rig = useWebGateway();

/** The menu's items, in order, by their test ids. */
const menuItems = (page: Page) =>
  page.evaluate<string[]>(
    `[...document.querySelectorAll('[data-testid="menu"] [role^="menuitem"]:not(:disabled)')]
      .map((el) => el.dataset.testid)`,
  );

describe('the ⋯ menu is whole when it opens (real browser, real CLI)', () => {
  it('keeps its items while open when the notifications answer comes after it opened', async () => {
    const conv = 'menu-whole';
    const w = rig.gw.watch(conv);
    await w.ready;
    const m = await rig.gw.post(conv, 'hello tag:menu-whole');
    await w.waitReply(m.messageId, 'reply', rig.budget);

    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const app = await openApp(rig.browser, rig.gw.ep, {
      conversation: conv,
      setup: async (context) => {
        await context.grantPermissions(['notifications'], { origin: rig.gw.ep.base });
        await context.route(/\/api\/push$/, async (route) => {
          await held;
          await route.continue();
        });
      },
    });
    const { page } = app;
    await page.getByTestId('reply').waitFor({ timeout: rig.budget });

    await page.getByTestId('conversation-menu').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page), { timeout: rig.budget }).toBe('rename');
    const opened = await menuItems(page);
    expect(opened).not.toContain('notify-on');
    await page.keyboard.press('End');
    await expect.poll(() => focused(page), { timeout: rig.budget }).toBe(opened.at(-1));

    // The answer comes: the page asks its service worker for the subscription, as the app does after the answer.
    const answered = page.waitForResponse(/\/api\/push$/, { timeout: rig.budget });
    release();
    await answered;
    await page.evaluate(
      `navigator.serviceWorker.ready.then((r) => r.pushManager.getSubscription())
        .then(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))))`,
    );
    expect(await menuItems(page)).toEqual(opened);
    expect(await focused(page)).toBe(opened.at(-1));

    // Opened again, the menu has the item, last, and End reaches it.
    await page.keyboard.press('Escape');
    await expect.poll(() => focused(page), { timeout: rig.budget }).toBe('conversation-menu');
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page), { timeout: rig.budget }).toBe('rename');
    expect((await menuItems(page)).at(-1)).toBe('notify-on');
    await page.keyboard.press('End');
    await expect.poll(() => focused(page), { timeout: rig.budget }).toBe('notify-on');
    expect(app.problems).toEqual([]);
    await app.close();
  });
});
