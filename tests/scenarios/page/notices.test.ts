/**
 * What the gateway tells the person reads like the rest of the page, in a real browser on a real
 * gateway (real CLI, mock Messages API, real git): `/diff`'s answer is drawn as a diff (a code
 * block, monospace, added and removed lines coloured), not as Markdown source, at 390×844 and
 * 1280×800, light and dark; a time in a notice ("rate limited until 21:35 UTC") is shown in the
 * device's own zone and format, the one its bubbles use.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../support/axe.js';
import { LOOKS, lookName, openApp, openLook, shot, useWebGateway } from '../../support/browser-rig.js';
import { editedConversation, send, style } from '../../support/chat-helpers.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig } from '../../support/gateway-rig.js';
import { projectRepo } from '../../support/review-rig.js';

const rig = useWebGateway((mock) => ({
  agent: agentConfig(mock.url, tempDir('chome')),
  projects: { repo: { path: projectRepo(), worktrees: true } },
}));
let conv = '';

beforeAll(async () => {
  conv = (await editedConversation(rig, 'Uppercase gamma')).conv;
});

/** The answer to a command sent from the page, once drawn. */
async function answer(page: Page, command: string) {
  const before = await page.getByTestId('notice').count();
  await send(page, command);
  await expect.poll(() => page.getByTestId('notice').count(), { timeout: rig.budget }).toBeGreaterThan(before);
  return page.getByTestId('notice').nth(before);
}

describe('notices (real browser, real CLI)', () => {
  for (const look of LOOKS)
    it(`${lookName(look)}: /diff is drawn as a diff`, async () => {
      const app = await openLook(rig.browser, rig.gw.ep, look, conv);
      const { page } = app;
      await page.getByTestId('reply').first().waitFor({ timeout: rig.budget });
      const diff = await answer(page, '/diff');
      // No Markdown source on the page.
      expect(await diff.textContent()).not.toContain('```');
      const code = diff.locator('pre code').first();
      await code.waitFor({ timeout: rig.budget });
      expect(await style(code, 'font-family')).toMatch(/mono/i);
      await diff.locator('.hljs-addition').first().waitFor({ timeout: rig.budget });
      expect(await diff.locator('.hljs-addition').first().textContent()).toContain('+GAMMA');
      expect(await diff.locator('.hljs-deletion').first().textContent()).toContain('-gamma');
      // The list of files stays text above it.
      expect(await diff.textContent()).toMatch(/M a\.txt \+1 −1/);
      expect(await seriousViolations(page)).toEqual([]);
      await diff.scrollIntoViewIfNeeded();
      await shot(page, `diff-command-${lookName(look)}`);
      expect(app.problems).toEqual([]);
      await app.close();
    });

  it('at 390×844: a notice says its time in the device zone and format, as the bubbles do', async () => {
    const app = await openApp(rig.browser, rig.gw.ep, {
      size: 'phone',
      conversation: 'times',
      locale: 'en-US',
      timezoneId: 'Asia/Kolkata',
    });
    const { page } = app;
    const w = rig.gw.watch('times');
    await w.ready;
    await send(page, 'a limit please [[429:subscription]]');
    const raw = await w.wait('reply', (d) => d.kind === 'notice' && /UTC/.test(String(d.text)), rig.budget);
    const utc = /until (\d{2}):(\d{2}) UTC/.exec(String(raw.data.text))!;
    const at = Number(raw.data.at);
    // The same moment in Kolkata (UTC+5:30), as this device writes a time.
    const expected = await page.evaluate<string, [number, number, number]>(
      ([h, m, near]) => {
        const d = new Date(near);
        d.setUTCHours(h, m, 0, 0);
        if (d.getTime() < near - 12 * 3600_000) d.setUTCDate(d.getUTCDate() + 1);
        return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
      },
      [Number(utc[1]), Number(utc[2]), at],
    );
    const notice = page.getByTestId('notice').filter({ hasText: 'rate limited' });
    await notice.waitFor({ timeout: rig.budget });
    expect(await notice.textContent()).toContain(`until ${expected}`);
    expect(await notice.textContent()).not.toContain('UTC');
    // The bubble's time is written the same way (hh:mm AM/PM here).
    const bubble = await page.getByTestId('user-message').first().locator('.when').textContent();
    // The same form, not the same half of the day: the bubble is now, the notice's time the limit's end.
    const shape = (s: string) => s.replace(/\d/g, '9').replace(/\b[AP]M\b/, 'XM');
    expect(shape(bubble!)).toBe(shape(expected));
    expect(app.problems).toEqual([]);
    await app.close();
  });
});
