/**
 * Schedules managed from the page, in a real browser on a real gateway: a schedule made from the form (answered
 * with its cron line and next runs, then listed, and kept by the gateway), a line that does not read (the gateway's
 * reason shown, what was typed kept), a name the config file has (refused, said), pause and resume, edit, remove
 * after a confirmation; a config file's schedule offers neither Edit nor Remove. At 390×844 and 1280×800, with axe
 * on the form. Screenshots go to test-artifacts/web/.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ScheduleList, ScheduleView } from '../../../src/http/wire.js';
import { seriousViolations } from '../../support/axe.js';
import { openApp, shot, useWebGateway } from '../../support/browser-rig.js';
import { focused } from '../../support/chat-helpers.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig } from '../../support/gateway-rig.js';

/** A zone unlike the machine's: the form's default must be the device's, not the gateway's. */
const ZONE = 'Pacific/Auckland';

const rig = useWebGateway((mock) => ({
  agent: agentConfig(mock.url, tempDir('chome')),
  projects: { api: { path: tempDir('api') }, docs: { path: tempDir('docs') } },
  defaultProject: 'api',
  // Once a year, so it never runs during the test.
  schedules: { nightly: { cron: '0 0 1 1 *', timezone: 'UTC', prompt: 'Check the nightly build', project: 'api' } },
}));

/** The schedule as the gateway has it (GET /api/schedules), if it has it. */
async function kept(name: string): Promise<ScheduleView | undefined> {
  const list = (await (await rig.gw.api('GET', '/api/schedules')).json()) as ScheduleList;
  return list.schedules.find((s) => s.name === name);
}

const card = (page: Page, name: string) => page.locator(`[data-testid="schedule"][data-name="${name}"]`);
const fields = (page: Page) =>
  Promise.all(
    ['sf-name', 'sf-when', 'sf-timezone', 'sf-prompt', 'sf-project', 'sf-timeout'].map((id) =>
      page.getByTestId(id).inputValue(),
    ),
  );

/** The form is refused with a reason that matches `why`, and keeps everything typed. */
async function refused(page: Page, why: RegExp): Promise<void> {
  const typed = await fields(page);
  await page.getByTestId('schedule-save').click();
  await expect.poll(() => page.getByTestId('schedule-form-error').textContent(), { timeout: 20_000 }).toMatch(why);
  expect(await fields(page)).toEqual(typed);
}

describe('schedules managed from the page (real browser, real gateway)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    it(`${size}: make, a refused line, pause and resume, edit, remove`, async () => {
      const name = `digest-${size}`;
      const app = await openApp(rig.browser, rig.gw.ep, { size, conversation: `sm-${size}`, timezoneId: ZONE });
      const { page } = app;
      try {
        if (size === 'phone') await page.getByTestId('drawer-toggle').click();
        await page.getByTestId('open-schedules').click();

        // The config file's schedule: pause and resume, but changed and removed in the file, as it says.
        const nightly = card(page, 'nightly');
        await nightly.getByTestId('pause').waitFor();
        expect(await nightly.getByTestId('edit').count()).toBe(0);
        expect(await nightly.getByTestId('remove').count()).toBe(0);
        expect(await nightly.getByTestId('schedule-config-note').textContent()).toMatch(/config file/);

        await page.getByTestId('new-schedule').click();
        await page.getByTestId('schedule-form').waitFor();
        await expect.poll(() => focused(page)).toBe('sf-name');
        expect(await page.getByTestId('sf-timezone').inputValue()).toBe(ZONE);
        expect(await page.getByTestId('sf-project').inputValue()).toBe('api');
        expect(await seriousViolations(page)).toEqual([]);
        await shot(page, `sched-${size}-form`);

        await page.getByTestId('sf-name').fill(name);
        await page.getByTestId('sf-when').fill('every dya at 07:00');
        await page.getByTestId('sf-prompt').fill(`Summarise the night's CI (${size})`);
        await page.getByTestId('sf-project').selectOption('docs');
        await page.getByTestId('sf-timeout').fill('45');
        await refused(page, /cron/);
        expect(await kept(name)).toBeUndefined();
        expect(await seriousViolations(page)).toEqual([]);
        await shot(page, `sched-${size}-form-refused`);

        await page.getByTestId('sf-name').fill('nightly');
        await page.getByTestId('sf-when').fill('every day at 07:00');
        await refused(page, /nightly is in the config file/);
        expect((await kept('nightly'))?.prompt).toBe('Check the nightly build');

        await page.getByTestId('sf-name').fill(name);
        await page.getByTestId('schedule-save').click();
        const answer = page.getByTestId('schedule-answer');
        await expect
          .poll(() => answer.textContent(), { timeout: 20_000 })
          .toMatch(new RegExp(`^Schedule ${name} added: 0 7 \\* \\* \\* \\(${ZONE}\\); next: [^,]+, [^,]+, [^,]+\\.$`));
        expect(await page.getByTestId('schedule-form').count()).toBe(0);
        await expect.poll(() => focused(page)).toBe('new-schedule');
        const mine = card(page, name);
        await mine.waitFor();
        expect(await mine.textContent()).toContain('0 7 * * *');
        expect(await kept(name)).toMatchObject({
          origin: 'kept',
          line: 'every day at 07:00',
          cron: '0 7 * * *',
          timezone: ZONE,
          project: 'docs',
          session: 'fresh',
          timeoutMinutes: 45,
          paused: false,
        });
        await shot(page, `sched-${size}-list`);

        await mine.getByTestId('pause').click();
        await mine.getByTestId('resume').waitFor();
        // The same button, now Resume, keeps the keyboard's focus.
        expect(await focused(page)).toBe('resume');
        expect(await mine.getByTestId('schedule-next').textContent()).toBe('next: paused');
        expect((await kept(name))?.paused).toBe(true);
        await mine.getByTestId('resume').click();
        await mine.getByTestId('pause').waitFor();
        expect((await kept(name))?.paused).toBe(false);
        expect((await kept(name))?.next).toHaveLength(3);

        await mine.getByTestId('edit').click();
        await page.getByTestId('schedule-form').waitFor();
        expect(await page.getByTestId('sf-name').count()).toBe(0);
        await expect.poll(() => focused(page)).toBe('sf-when');
        expect(await page.getByTestId('sf-when').inputValue()).toBe('every day at 07:00');
        expect(await page.getByTestId('sf-prompt').inputValue()).toBe(`Summarise the night's CI (${size})`);
        expect(await page.getByTestId('sf-project').inputValue()).toBe('docs');
        expect(await page.getByTestId('sf-timeout').inputValue()).toBe('45');
        expect(await page.getByTestId('sf-session-fresh').isChecked()).toBe(true);
        await page.getByTestId('sf-when').fill('weekdays at 18:30');
        await page.getByTestId('sf-session-continue').check();
        await page.getByTestId('schedule-save').click();
        await expect
          .poll(() => answer.textContent(), { timeout: 20_000 })
          .toMatch(new RegExp(`^Schedule ${name} changed: 30 18 \\* \\* 1-5 \\(${ZONE}\\); next: `));
        expect(await kept(name)).toMatchObject({
          cron: '30 18 * * 1-5',
          session: 'continue',
          project: 'docs',
          prompt: `Summarise the night's CI (${size})`,
        });

        // Remove asks first; Keep it keeps it.
        await mine.getByTestId('remove').click();
        await expect.poll(() => focused(page)).toBe('remove-no');
        await mine.getByTestId('remove-no').click();
        expect(await mine.getByTestId('remove-confirm').count()).toBe(0);
        expect(await kept(name)).toBeDefined();
        await mine.getByTestId('remove').click();
        await mine.getByTestId('remove-yes').click();
        await mine.waitFor({ state: 'detached' });
        expect(await answer.textContent()).toBe(`Schedule ${name} removed.`);
        expect(await kept(name)).toBeUndefined();
        expect(await kept('nightly')).toBeDefined();
        expect(app.problems).toEqual([]);
      } finally {
        await app.close();
      }
    }, 180_000);
  }
});
