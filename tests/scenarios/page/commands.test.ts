/**
 * How answers read, in a real browser on a real gateway (real CLI, mock Messages API), at phone
 * and desktop size: the answers to /status, /project and /sessions are left-aligned blocks (a table
 * of "Key: value" lines, monospace lists), not centred text; a Markdown table's right-aligned
 * column (`---:`) stays right-aligned; body text is at the platform's reading size (16–17 px) and
 * every field at 16 px or more (no zoom on iOS).
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openApp, shot } from '../../support/browser-rig.js';
import { send, style } from '../../support/chat-helpers.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let browser: Awaited<ReturnType<typeof launch>>;
let budget = 20_000;

const TABLE = [
  '| file | lines | share |',
  '| --- | ---: | :---: |',
  '| a.ts | 7 | low |',
  '| big.ts | 12345 | high |',
].join('\n');

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockApi();
  mock.setScript((req) =>
    !req.side && req.lastText.includes('tag:table') ? { kind: 'text', text: `Counts:\n\n${TABLE}` } : undefined,
  );
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    projects: { site: { path: tempDir('site') }, api: { path: tempDir('api') } },
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

/** The answer to a command, once it is drawn. */
async function answer(page: Page, command: string): Promise<Locator> {
  const before = await page.getByTestId('notice').count();
  await send(page, command);
  await expect.poll(() => page.getByTestId('notice').count(), { timeout: budget }).toBe(before + 1);
  return page.getByTestId('notice').last();
}

/** A block starts at the left edge of the conversation (where the agent's text starts), its text not centred. */
async function leftAligned(page: Page, block: Locator): Promise<void> {
  const box = (await block.boundingBox())!;
  const content = (await page.locator('.timeline-content').boundingBox())!;
  const pad = Number.parseFloat(await style(page.locator('.timeline-content'), 'padding-left'));
  expect(Math.abs(box.x - (content.x + pad))).toBeLessThanOrEqual(2);
  expect(await style(block, 'text-align')).toMatch(/^(left|start)$/);
}

const px = (l: Locator) => style(l, 'font-size').then(Number.parseFloat);

describe('answers and reading sizes (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    it(`at ${size} size: command answers are left-aligned blocks; a right-aligned column stays right`, async () => {
      const app = await openApp(browser, gw.ep, { size, conversation: `cmd-${size}` });
      const { page } = app;
      const status = await answer(page, '/status');
      await leftAligned(page, status);
      const rows = status.locator('table tr');
      expect(await rows.count()).toBeGreaterThanOrEqual(4);
      expect(await rows.first().locator('th').textContent()).toBe('Session');
      expect(await status.locator('table').textContent()).toContain('Queue mode');

      const project = await answer(page, '/project');
      await leftAligned(page, project);
      const list = project.locator('pre');
      expect(await list.textContent()).toMatch(/→ site — .*\n\s+api — /);
      expect(await style(list, 'font-family')).toMatch(/mono/i);

      await send(page, `show the counts tag:table${size}`);
      const reply = page.getByTestId('reply').filter({ hasText: 'Counts' });
      await reply.waitFor({ timeout: budget });
      const cells = reply.locator('td');
      expect(await style(cells.nth(1), 'text-align')).toBe('right');
      expect(await style(cells.nth(2), 'text-align')).toBe('center');
      expect(await style(cells.nth(0), 'text-align')).toMatch(/^(left|start)$/);
      expect(await style(reply.locator('th').nth(1), 'text-align')).toBe('right');

      // A turn ran in the project: its CLI session is listed.
      const sessions = await answer(page, '/sessions');
      await leftAligned(page, sessions);
      expect(await sessions.locator('pre').textContent()).toMatch(/^1\. /);
      await shot(page, `commands-${size}`);
      expect(app.problems).toEqual([]);
      await app.close();
    });

    it(`at ${size} size: body text at 16–17 px, fields at 16 px or more`, async () => {
      const app = await openApp(browser, gw.ep, { size, conversation: `read-${size}` });
      const { page } = app;
      await send(page, `how big is this text tag:size${size}`);
      const reply = page.getByTestId('reply').filter({ hasText: `ok tag:size${size}` });
      await reply.waitFor({ timeout: budget });
      for (const [what, l] of [
        ['reply', reply.locator('p').first()],
        ['my message', page.getByTestId('user-message').first().locator('.text')],
      ] as const) {
        const size_ = await px(l);
        expect([what, size_ >= 16 && size_ <= 17]).toEqual([what, true]);
      }
      expect(await px(page.getByTestId('input'))).toBeGreaterThanOrEqual(16);
      if (size === 'phone') await page.getByTestId('drawer-toggle').click();
      expect(await px(page.getByTestId('project-picker'))).toBeGreaterThanOrEqual(16);
      if (size === 'phone') await page.getByTestId('drawer-backdrop').click({ position: { x: 380, y: 400 } });
      await page.getByTestId('conversation-menu').click();
      await page.getByTestId('rename').click();
      expect(await px(page.getByTestId('rename-input'))).toBeGreaterThanOrEqual(16);
      expect(app.problems).toEqual([]);
      await app.close();
    });
  }
});
