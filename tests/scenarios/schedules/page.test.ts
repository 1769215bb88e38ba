/**
 * The page's Schedules view, in a real browser on a real gateway (real CLI against the mock): a schedule's runs,
 * a heartbeat's quiet run, a missed run, Run now; a run opens its conversation. Screenshots at 390×844 and
 * 1280×800 go to test-artifacts/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/schedules/scheduler.js';
import { launch, openApp, shot } from '../../support/browser-rig.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let browser: Awaited<ReturnType<typeof launch>>;
let gw: Awaited<ReturnType<typeof startInProcess>>;
const home = tempDir('rhome');
const claudeHome = tempDir('chome');

const shifted = (offsetMs: number): Clock => ({
  now: () => Date.now() + offsetMs,
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
});

beforeAll(async () => {
  mock = await startMockApi({
    script: (req) =>
      !req.side && !req.afterTool && req.lastText.includes('tag:beat')
        ? { kind: 'text', text: 'NOTHING_TO_REPORT' }
        : undefined,
  });
  const day = Date.UTC(2030, 2, 4);
  const schedules = {
    report: { cron: '0 7 * * *', timezone: 'UTC', prompt: 'Report tag:report', session: 'fresh', deliver: 'web:home' },
    beat: { cron: '0 7 * * *', timezone: 'UTC', prompt: 'Check tag:beat', quiet: true, deliver: 'web:beat' },
  };
  const cfg = { agent: agentConfig(mock.url, claudeHome), schedules };
  // Day 0, just before 07:00: both fire once. Then back two days later at 10:00: their slots since are missed.
  const first = await startInProcess(cfg, { home, clock: shifted(day + 7 * 3600_000 - 1500 - Date.now()) });
  await waitUntil(() => mock.mainRequests().filter((r) => /tag:(report|beat)/.test(r.lastText)).length >= 2, 60_000);
  await new Promise((r) => setTimeout(r, 1500));
  await first.stop();
  gw = await startInProcess(cfg, { home, clock: shifted(day + 2 * 86_400_000 + 10 * 3600_000 - Date.now()) });
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await mock?.close();
});

describe('the Schedules view (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    it(`${size}: each schedule's runs (ran, quiet, missed), Run now, a run opens its conversation`, async () => {
      const app = await openApp(browser, gw.ep, { size, conversation: `sv-${size}` });
      try {
        const { page } = app;
        if (size === 'phone') await page.getByTestId('drawer-toggle').click();
        await page.getByTestId('open-schedules').click();
        const report = page.locator('[data-testid="schedule"][data-name="report"]');
        const beat = page.locator('[data-testid="schedule"][data-name="beat"]');
        await report.locator('[data-outcome="missed"]').waitFor();
        expect(await report.locator('[data-outcome="ran"]').count()).toBeGreaterThanOrEqual(1);
        await expect(beat.locator('[data-outcome="quiet"]').count()).resolves.toBe(1);
        await expect(report.textContent()).resolves.toContain('0 7 * * *');
        // The next run in the device's format, as the runs are (not the schedule zone's offset).
        const runText = (await report.locator('[data-outcome="missed"]').textContent()) ?? '';
        const nextText = (await report.getByTestId('schedule-next').textContent()) ?? '';
        expect(nextText).not.toMatch(/GMT/);
        const shape = (t: string) => t.replace(/[0-9]/g, '#').replace(/\b[A-Z][a-z]{2}\b/g, 'W');
        expect(shape(nextText.replace(/^next: /, ''))).toBe(shape(runText.split(' · ')[0]!));
        await shot(page, `schedules-${size}`);

        const before = mock.mainRequests().filter((r) => r.lastText.includes('tag:report')).length;
        await report.getByTestId('run-now').click();
        await waitUntil(
          () => mock.mainRequests().filter((r) => r.lastText.includes('tag:report')).length > before,
          60_000,
        );
        await report.locator('[data-testid="schedule-run"]').nth(0).locator('button').waitFor();
        await report.locator('[data-outcome="ran"] button').first().click();
        await page.getByTestId('schedules').waitFor({ state: 'detached' });
        expect(app.problems).toEqual([]);
      } finally {
        await app.close();
      }
    }, 120_000);
  }
});
