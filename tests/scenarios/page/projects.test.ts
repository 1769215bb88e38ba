/**
 * Projects in the web app, in a real browser on a real gateway (real CLI, mock Messages API, real
 * git), at phone and desktop size: the header keeps the project chip beside a long title (on a phone
 * on a line under it); the
 * drawer's picker is the project of a *new* conversation; "Move to project" in the ⋯ menu moves
 * the open one (the /project command, sent as any message); each conversation in the list shows
 * its project and, in a project with a worktree per conversation, its real branch; one waiting
 * for an approval is marked; the list narrows to one project.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openApp, shot } from '../../support/browser-rig.js';
import { send } from '../../support/chat-helpers.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let browser: Awaited<ReturnType<typeof launch>>;
let budget = 20_000;
const repo = tempDir('repo');
const api = tempDir('api');

const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });

beforeAll(async () => {
  const t0 = Date.now();
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'README.md'), '# site\n');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'first');
  mock = await startMockApi();
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    // site: a worktree (and branch) per conversation; api: every tool call is asked of the person.
    projects: { site: { path: repo, worktrees: true }, api: { path: api, permissionMode: 'relay' } },
    defaultProject: 'site',
  });
  browser = await launch();
  budget = Math.min(60_000, Math.max(20_000, (Date.now() - t0) * 10));
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await mock?.close();
});

async function turn(conv: string, text: string): Promise<void> {
  const w = gw.watch(conv);
  await w.ready;
  const m = await gw.post(conv, text);
  await w.waitReply(m.messageId, undefined, budget);
}

/** Opens the list (the drawer, on a phone). */
async function openList(page: Page, phone: boolean): Promise<void> {
  if (phone) await page.getByTestId('drawer-toggle').click();
  await page.getByTestId('conversations').waitFor({ state: 'visible' });
}

const item = (page: Page, id: string) => page.locator(`[data-testid="conversation"][data-id="${id}"]`);

describe('projects (real browser, real CLI, real git)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    const phone = size === 'phone';

    it(`at ${size} size: the chip beside a long title, move to project, and the picker for new ones`, async () => {
      const conv = `move-${size}`;
      await turn(`move-${size}`, `/project api`);
      await gw.api('PATCH', `/api/conversations/${conv}`, {
        title: `A very long title about the release of the next version and everything it takes ${size}`,
      });
      const app = await openApp(browser, gw.ep, { size, conversation: conv });
      const { page } = app;
      const chip = page.getByTestId('project-chip');
      await expect.poll(() => chip.textContent(), { timeout: budget }).toBe('api');
      const header = (await page.locator('header').boundingBox())!;
      const box = (await chip.boundingBox())!;
      const menu = (await page.getByTestId('conversation-menu').boundingBox())!;
      // Its name whole: a pill on a desktop, a line under the title on a phone.
      expect(box.width).toBeGreaterThan(15);
      expect(box.x + box.width).toBeLessThanOrEqual(menu.x);
      expect(box.x).toBeGreaterThan(header.x);
      expect(await chip.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

      // The drawer's picker is for a new conversation, whatever the open one's project.
      await openList(page, phone);
      const picker = page.getByTestId('project-picker');
      expect(await picker.getAttribute('aria-label')).toMatch(/new conversation/i);
      expect(await picker.inputValue()).toBe('site');
      if (phone) await page.getByTestId('drawer-backdrop').click({ position: { x: 380, y: 400 } });

      // Move to project, from the ⋯ menu: the command goes out as a message and is answered.
      await page.getByTestId('conversation-menu').click();
      await page.getByTestId('move-project').click();
      expect(await page.getByTestId('move-to-api').isDisabled()).toBe(true);
      await page.getByTestId('move-to-site').click();
      await page.getByTestId('notice').filter({ hasText: 'now works in site' }).waitFor({ timeout: budget });
      await expect.poll(() => chip.textContent(), { timeout: budget }).toMatch(/^site/);
      expect(gw.gw.services.store.conversation(`web:${conv}`)?.project).toBe('site');
      await send(page, 'where am I now [[bash:pwd]]');
      const pwd = page.getByTestId('tool-step').filter({ hasText: 'pwd' });
      await expect.poll(() => pwd.getAttribute('data-status'), { timeout: budget }).toBe('ok');
      // A worktree of the site repository, on the conversation's own branch.
      expect(await pwd.locator('.output pre').textContent()).toContain('rudder-worktrees');
      expect(app.problems).toEqual([]);
      await app.close();
    });

    it(`at ${size} size: project and branch on each conversation, a waiting one marked, a filter`, async () => {
      const inSite = `branch-${size}`;
      const waiting = `ask-${size}`;
      await turn(inSite, 'make a worktree tag:wt');
      const w = gw.watch(waiting);
      await w.ready;
      await gw.post(waiting, '/project api');
      await w.wait('reply', () => true, budget);
      await gw.post(waiting, `[[bash:touch ${api}/asked-${size}]] tag:ask`);
      const asked = await w.wait('step', (d) => (d.step as { kind: string }).kind === 'permission', budget);
      const requestId = (asked.data.step as { requestId: string }).requestId;

      const app = await openApp(browser, gw.ep, { size, conversation: inSite });
      const { page } = app;
      await page.getByTestId('reply').waitFor({ timeout: budget });
      await openList(page, phone);
      // Its branch is the one git has.
      const branch = item(page, inSite).getByTestId('item-branch');
      await branch.waitFor({ timeout: budget });
      expect(git('branch', '--list', `rudder/web/${inSite}`)).toContain((await branch.textContent())!);
      expect(await item(page, inSite).getByTestId('item-project').textContent()).toBe('site');
      expect(await item(page, waiting).getByTestId('item-project').textContent()).toBe('api');
      // Waiting for an approval, in a conversation that is not open.
      await item(page, waiting).getByTestId('waiting').waitFor({ timeout: budget });
      expect(await item(page, inSite).getByTestId('waiting').count()).toBe(0);
      await shot(page, `list-projects-${size}`);

      // The filter: api only, then all again.
      await page.locator('[data-testid="project-filter"][data-project="api"]').click();
      await item(page, inSite).waitFor({ state: 'detached' });
      expect(await item(page, waiting).count()).toBe(1);
      await page.locator('[data-testid="project-filter"][data-project=""]').click();
      await item(page, inSite).waitFor();

      // Answered elsewhere: the mark goes at the next look at the list.
      const r = await gw.api('POST', `/api/conversations/${waiting}/permissions/${requestId}`, { allow: true });
      expect(r.status).toBe(200);
      await expect.poll(() => fs.existsSync(`${api}/asked-${size}`), { timeout: budget }).toBe(true);
      // (Opening the drawer refreshes the list on a phone; on a desktop, where it stays open, a reload does.)
      if (phone) await page.getByTestId('drawer-backdrop').click({ position: { x: 380, y: 400 } });
      else await page.reload();
      await openList(page, phone);
      await item(page, inSite).waitFor({ timeout: budget });
      await item(page, waiting).getByTestId('waiting').waitFor({ state: 'detached', timeout: budget });
      expect(app.problems).toEqual([]);
      await app.close();
    });
  }
});
