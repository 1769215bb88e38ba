/**
 * The header, the drawer and the ⋯ menu, in a real browser on a real gateway (real CLI, mock
 * Messages API, real git), at 390×844 and 1280×800: a worktree conversation's header shows its
 * branch at phone width too, whole; the drawer's project picker shows the whole project name; the
 * Changes entry shows its name. For a keyboard: the drawer is a dialog that takes the focus and
 * leaves the page behind it out of reach until it closes; the ⋯ menu takes the focus and moves
 * with the arrow keys; the desktop has a skip link to the message box. axe finds no serious or
 * critical violation with the drawer or the menu open.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../support/axe.js';
import { openApp, shot, useWebGateway } from '../../support/browser-rig.js';
import { focused } from '../../support/chat-helpers.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig } from '../../support/gateway-rig.js';
import { projectRepo } from '../../support/review-rig.js';

const rig = useWebGateway((mock) => ({
  agent: agentConfig(mock.url, tempDir('chome')),
  projects: {
    'payments-gateway': { path: projectRepo(), worktrees: true },
    'notification-service': { path: tempDir('notify') },
  },
  defaultProject: 'payments-gateway',
}));
let conv = '';

beforeAll(async () => {
  const made = await rig.gw.api('POST', '/api/conversations', { project: 'payments-gateway' });
  conv = ((await made.json()) as { id: string }).id;
  const w = rig.gw.watch(conv);
  await w.ready;
  await rig.gw.api('PATCH', `/api/conversations/${conv}`, { title: 'Retry failed payouts' });
  const m = await rig.gw.post(conv, 'hello');
  await w.waitReply(m.messageId, 'reply', 60_000);
});

const focusInside = (page: Page, testid: string) =>
  page.evaluate<boolean>(`!!document.querySelector('[data-testid="${testid}"]')?.contains(document.activeElement)`);

/** Whether the element's text is cut (its text is wider than its box, by any fraction of a pixel). */
const cut = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const range = el.ownerDocument.createRange();
      range.selectNodeContents(el);
      return range.getBoundingClientRect().width > el.getBoundingClientRect().width + 0.01;
    });

/** Whether the select's chosen option is shown whole (its text fits the box, the arrow aside). */
const selectFits = (page: Page, testid: string) =>
  page.getByTestId(testid).evaluate((el) => {
    const s = el as unknown as {
      options: Array<{ text: string }>;
      selectedIndex: number;
      clientWidth: number;
      ownerDocument: { createElement(t: string): any };
    };
    const view = (el as unknown as { ownerDocument: { defaultView: any } }).ownerDocument.defaultView;
    const cs = view.getComputedStyle(el);
    const ctx = s.ownerDocument.createElement('canvas').getContext('2d');
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const text = ctx.measureText(s.options[s.selectedIndex]!.text).width;
    const room = s.clientWidth - Number.parseFloat(cs.paddingLeft) - Number.parseFloat(cs.paddingRight) - 16;
    return text <= room;
  });

describe('header, drawer and menu (real browser, real CLI)', () => {
  it('at 390×844: the branch and the Changes name show; the picker shows the whole project', async () => {
    const app = await openApp(rig.browser, rig.gw.ep, { size: 'phone', conversation: conv, scale: 3 });
    const { page } = app;
    await page.getByTestId('reply').first().waitFor({ timeout: rig.budget });
    await expect
      .poll(() => page.getByTestId('project-chip').textContent(), { timeout: rig.budget })
      .toContain(`rudder/web/${conv}`);
    const branch = page.locator('[data-testid="project-chip"] .branch');
    expect.soft(await branch.isVisible()).toBe(true);
    expect.soft((await branch.textContent())?.trim()).toMatch(new RegExp(`rudder/web/${conv}$`));
    expect.soft(await cut(page, '[data-testid="project-chip"] .branch')).toBe(false);
    // The Changes entry says its name, not only its icon.
    expect.soft(await page.getByTestId('changes-toggle').getByText('Changes').isVisible()).toBe(true);
    await shot(page, 'header-phone');

    await page.getByTestId('drawer-toggle').click();
    await expect.poll(async () => (await page.getByTestId('drawer').boundingBox())!.x).toBe(0);
    expect.soft(await selectFits(page, 'project-picker')).toBe(true);
    await page.getByTestId('project-picker').selectOption('notification-service');
    expect.soft(await selectFits(page, 'project-picker')).toBe(true);
    await shot(page, 'drawer-phone');
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it('at 390×844: the drawer is a dialog that takes the focus and shuts the page behind it out', async () => {
    const app = await openApp(rig.browser, rig.gw.ep, { size: 'phone', conversation: conv });
    const { page } = app;
    await page.getByTestId('reply').first().waitFor({ timeout: rig.budget });
    await page.getByTestId('drawer-toggle').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focusInside(page, 'drawer'), { timeout: rig.budget }).toBe(true);
    const drawer = page.getByTestId('drawer');
    expect(await drawer.getAttribute('role')).toBe('dialog');
    expect(await drawer.getAttribute('aria-modal')).toBe('true');
    // The page behind is out of reach: Tab stays in the drawer.
    expect(await page.locator('main').evaluate((el) => (el as unknown as { inert: boolean }).inert)).toBe(true);
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      expect(await focusInside(page, 'drawer')).toBe(true);
    }
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await expect.poll(() => focused(page)).toBe('drawer-toggle');
    expect(await page.locator('main').evaluate((el) => (el as unknown as { inert: boolean }).inert)).toBe(false);
    expect(app.problems).toEqual([]);
    await app.close();
  });

  for (const size of ['phone', 'desktop'] as const)
    it(`at ${size} size: the ⋯ menu takes the focus, moves with the arrow keys, gives it back on Escape`, async () => {
      const app = await openApp(rig.browser, rig.gw.ep, { size, conversation: conv });
      const { page } = app;
      await page.getByTestId('reply').first().waitFor({ timeout: rig.budget });
      await page.getByTestId('conversation-menu').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => focused(page), { timeout: rig.budget }).toBe('rename');
      // The focus moves when the menu has handled the key: asked until it has (a busy machine renders late).
      const focusMoves = (to: string) => expect.poll(() => focused(page), { timeout: rig.budget }).toBe(to);
      const onLast = () =>
        expect
          .poll(
            () =>
              page.evaluate<boolean>(`(() => {
                const items = [...document.querySelectorAll('[data-testid="menu"] [role^="menuitem"]:not(:disabled)')];
                return items.length > 1 && items.at(-1) === document.activeElement; })()`),
            { timeout: rig.budget },
          )
          .toBe(true);
      await page.keyboard.press('ArrowDown');
      await focusMoves('move-project');
      await page.keyboard.press('End');
      await onLast();
      await page.keyboard.press('Home');
      await focusMoves('rename');
      await page.keyboard.press('ArrowUp');
      await onLast();
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByTestId('menu').count(), { timeout: rig.budget }).toBe(0);
      await focusMoves('conversation-menu');
      expect(app.problems).toEqual([]);
      await app.close();
    });

  it('at 1280×800: a skip link goes from the top of the page to the message box', async () => {
    const app = await openApp(rig.browser, rig.gw.ep, { size: 'desktop', conversation: conv });
    const { page } = app;
    await page.getByTestId('reply').first().waitFor({ timeout: rig.budget });
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('skip-link');
    expect(await page.getByTestId('skip-link').isVisible()).toBe(true);
    expect(await page.getByTestId('skip-link').textContent()).toMatch(/Skip/);
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('input');
    expect(await seriousViolations(page)).toEqual([]);
    expect(app.problems).toEqual([]);
    await app.close();
  });
});
