/**
 * The web app with projects on two nodes, in a real browser (chromium) on a real front and real
 * `rudder node` processes: the picker names each project's node, a conversation started there
 * runs on that node (its tool's directory is the node's), and "Move to project" names the nodes.
 * Screenshots at phone and desktop size, light and dark, in test-artifacts/web/.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openApp, shot } from '../../support/browser-rig.js';
import { send } from '../../support/chat-helpers.js';
import { type Cluster, useCluster } from '../../support/nodes-rig.js';

let cl: Cluster;
let browser: Awaited<ReturnType<typeof launch>>;

useCluster(
  [
    { name: 'alpha', projects: ['web'] },
    { name: 'beta', projects: ['api'] },
  ],
  (s) => void (cl = s.cl),
);

beforeAll(async () => {
  browser = await launch();
}, 240_000);

afterAll(async () => {
  await browser?.close();
});

async function openList(page: Page, phone: boolean): Promise<void> {
  if (phone) await page.getByTestId('drawer-toggle').click();
  await page.getByTestId('conversations').waitFor({ state: 'visible' });
}

describe('projects on nodes in the page (real browser)', { timeout: 180_000 }, () => {
  for (const size of ['phone', 'desktop'] as const)
    for (const dark of [false, true]) {
      const phone = size === 'phone';
      const look = `${size}-${dark ? 'dark' : 'light'}`;
      it(`at ${look}: the picker names each node, and a new conversation runs on the chosen one`, async () => {
        const app = await openApp(browser, cl.front.ep, { size, dark });
        const { page } = app;
        // A loaded machine makes a browser slow: every wait gets the budget from the measured start-up.
        page.setDefaultTimeout(cl.budget());
        await openList(page, phone);
        const picker = page.getByTestId('project-picker');
        await picker.waitFor({ timeout: cl.budget() });
        const options = await picker.locator('option').allTextContents();
        expect(options).toEqual(['web (on alpha)', 'api (on beta)']);
        await picker.selectOption('api');
        await shot(page, `nodes-picker-${look}`);
        await page.getByTestId('new-conversation').click();
        // The new conversation is open (its project in the header) before anything is typed into it.
        const chip = page.getByTestId('project-chip');
        await expect.poll(() => chip.textContent(), { timeout: cl.budget() }).toBe('api');
        await page.getByTestId('input').waitFor({ state: 'visible', timeout: cl.budget() });
        await send(page, `where am I [[bash:pwd]] tag:pg-${look}`);
        const pwd = page.getByTestId('tool-step').filter({ hasText: 'pwd' });
        await expect.poll(() => pwd.getAttribute('data-status'), { timeout: cl.budget() }).toBe('ok');
        expect(await pwd.locator('.output pre').textContent()).toContain(cl.nodes.beta!.dirs.api);
        await page.getByTestId('reply').filter({ hasText: 'done ok' }).waitFor({ timeout: cl.budget() });
        await page.getByTestId('conversation-menu').click();
        await page.getByTestId('move-project').click();
        expect(await page.getByTestId('move-to-web').textContent()).toContain('on alpha');
        await shot(page, `nodes-move-${look}`);
        expect(app.problems).toEqual([]);
        await app.close();
      });
    }
});
