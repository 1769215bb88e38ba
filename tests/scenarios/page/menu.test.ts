/**
 * The conversation's ⋯ menu, in a real browser on a real gateway (real CLI, mock Messages API), at
 * phone and desktop size: it closes on Escape (focus back on its button), on a tap outside it, and
 * when another conversation opens.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { openApp, SIZES, useWebGateway } from '../../support/browser-rig.js';

const rig = useWebGateway();

async function seed(conv: string, text: string): Promise<void> {
  const w = rig.gw.watch(conv);
  await w.ready;
  const m = await rig.gw.post(conv, text);
  await w.waitReply(m.messageId, 'reply', rig.budget);
}

const menu = (page: Page) => page.getByRole('menu');

describe('the ⋯ menu (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    it(`at ${size} size: closes on Escape, a tap outside, and a switch of conversation`, async () => {
      const phone = size === 'phone';
      await seed(`menu-b-${size}`, `the other conversation tag:mb${size}`);
      await seed(`menu-a-${size}`, `this conversation tag:ma${size}`);
      const app = await openApp(rig.browser, rig.gw.ep, { size, conversation: `menu-a-${size}` });
      const { page } = app;
      await page.getByTestId('reply').waitFor({ timeout: rig.budget });
      const button = page.getByTestId('conversation-menu');
      const tap = (l: ReturnType<Page['locator']>, opts?: { position: { x: number; y: number } }) =>
        phone ? l.tap(opts) : l.click(opts);

      await tap(button);
      await menu(page).waitFor();
      await page.keyboard.press('Escape');
      await menu(page).waitFor({ state: 'detached' });
      expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('data-testid')")).toBe(
        'conversation-menu',
      );

      // A tap on the conversation below closes it, and does nothing else.
      await tap(button);
      await menu(page).waitFor();
      await tap(page.getByTestId('log'), { position: { x: 20, y: 200 } });
      await menu(page).waitFor({ state: 'detached' });
      expect(await page.getByTestId('conversation-title').textContent()).toContain('this conversation');

      await tap(button);
      await menu(page).waitFor();
      const other = page.locator(`[data-testid="conversation"][data-id="menu-b-${size}"] button`);
      if (phone) {
        // On a phone the list is a drawer: opening it is already a tap outside the menu.
        await tap(page.getByTestId('drawer-toggle'));
        await menu(page).waitFor({ state: 'detached' });
        await tap(other);
      } else {
        // From the keyboard no tap lands outside: only the switch itself closes it.
        await other.focus();
        await page.keyboard.press('Enter');
      }
      await expect
        .poll(() => page.getByTestId('conversation-title').textContent(), { timeout: rig.budget })
        .toContain('the other conversation');
      expect(await menu(page).count()).toBe(0);
      expect(page.viewportSize()?.width).toBe(SIZES[size].width);
      expect(app.problems).toEqual([]);
      await app.close();
    });
  }
});
