/**
 * Talking to the agent while it works, in a real browser on a real gateway (real CLI, mock
 * Messages API): a message steered mid-tool shows inside that turn where the agent took it in; a
 * queued message shows as waiting and can be edited or withdrawn, and a withdrawn one never
 * reaches the agent. Permission requests are answered in the turn.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openApp, shot } from '../../support/browser-rig.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let browser: Browser;
let budget = 20_000;
const gateways: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockApi();
  browser = await launch();
  budget = Math.min(60_000, Math.max(20_000, (Date.now() - t0) * 20));
});
afterAll(async () => {
  await browser?.close();
  await Promise.all(gateways.map((g) => g.stop()));
  await mock?.close();
});

async function gateway(agent: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome'), agent), ...extra });
  gateways.push(gw);
  return gw;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('input').fill(text);
  await page.getByTestId('send').click();
}

const modelSaw = (tag: string) => mock.mainRequests().filter((r) => r.lastUserText.includes(tag)).length;

describe('messages while the agent works (real browser, real CLI)', () => {
  it('shows a message steered mid-tool inside that turn, after the tool it came in behind', async () => {
    const gw = await gateway();
    const app = await openApp(browser, gw.ep, { conversation: 'steer' });
    const { page } = app;
    await page.getByTestId('input').waitFor({ timeout: budget });
    await send(page, 'work [[bash:sleep 3]] tag:sa');
    const turn = page.getByTestId('turn').last();
    await turn.getByTestId('tool-step').waitFor({ timeout: budget });
    await send(page, 'and also this tag:sb');
    // Until the agent takes it in, it waits below the turn, handed over.
    const steered = turn.locator('[data-testid="user-message"][data-steered="true"]');
    await steered.waitFor({ timeout: budget });
    expect(await steered.textContent()).toContain('and also this tag:sb');
    await page.getByTestId('reply').last().waitFor({ timeout: budget });
    // One turn holds both: the tool, then the steered message, then the answer.
    expect(await page.getByTestId('turn').count()).toBe(1);
    const order = await turn
      .locator('[data-testid="tool-step"], [data-steered="true"], [data-testid="reply"]')
      .evaluateAll((els) =>
        els.map((e) => e.getAttribute('data-testid') + (e.getAttribute('data-steered') ? ':steered' : '')),
      );
    expect(order).toEqual(['tool-step', 'user-message:steered', 'reply']);
    expect(await steered.getByTestId('acks').textContent()).toContain('➡️');
    expect(
      await page.locator('[data-testid="user-message"]:not([data-steered])').filter({ hasText: 'tag:sb' }).count(),
    ).toBe(0);
    await shot(page, 'steered-desktop');
    // A reload draws the same.
    await page.reload();
    await page.getByTestId('turn').last().locator('[data-steered="true"]').waitFor({ timeout: budget });
    expect(await page.getByTestId('turn').count()).toBe(1);
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it(
    'shows a queued message as waiting; Edit changes what the agent gets, Withdraw keeps it from ever ' + 'reaching it',
    async () => {
      const gw = await gateway({}, { steering: { mode: 'followup' } });
      const app = await openApp(browser, gw.ep, { size: 'phone', conversation: 'queue' });
      const { page } = app;
      await page.getByTestId('input').waitFor({ timeout: budget });
      await send(page, 'first [[bash:sleep 4]] tag:qa');
      await page.getByTestId('tool-step').waitFor({ timeout: budget });
      await send(page, 'take this back tag:qw');
      await send(page, 'old words tag:qold');
      const withdrawn = page.getByTestId('queued-message').filter({ hasText: 'tag:qw' });
      const edited = page.getByTestId('queued-message').filter({ hasText: 'tag:qold' });
      await expect.poll(() => withdrawn.getAttribute('data-state'), { timeout: budget }).toBe('queued');
      await expect.poll(() => edited.getAttribute('data-state'), { timeout: budget }).toBe('queued');
      await shot(page, 'queued-phone');

      await withdrawn.getByTestId('withdraw').click();
      await page
        .getByTestId('queued-message')
        .filter({ hasText: 'tag:qw' })
        .waitFor({ state: 'detached', timeout: budget });
      expect(await page.getByTestId('user-message').filter({ hasText: 'tag:qw' }).getAttribute('data-state')).toBe(
        'withdrawn',
      );

      await edited.getByTestId('edit').click();
      await page.getByTestId('edit-input').fill('new words tag:qnew');
      await page.getByTestId('edit-save').click();
      await page.getByTestId('queued-message').filter({ hasText: 'tag:qnew' }).waitFor({ timeout: budget });

      // The first turn ends, then the edited one runs; the withdrawn one never does.
      const newReply = page.getByTestId('reply').filter({ hasText: 'ok tag:qnew' });
      await newReply.waitFor({ timeout: budget });
      expect(modelSaw('tag:qw')).toBe(0);
      expect(modelSaw('tag:qold')).toBe(0);
      expect(modelSaw('tag:qnew')).toBeGreaterThan(0);
      expect(await page.getByTestId('queued-message').count()).toBe(0);
      expect(gw.gw.services.store.recentMessages('web:queue').map((m) => m.state)).toEqual([
        'answered',
        'withdrawn',
        'answered',
      ]);
      expect(app.problems).toEqual([]);
      await app.close();
    },
  );

  it('answers a permission request in the turn: Approve runs the tool, Deny does not', async () => {
    const gw = await gateway({ permissionMode: 'relay' });
    const app = await openApp(browser, gw.ep, { size: 'phone', conversation: 'perm' });
    const { page } = app;
    await page.getByTestId('input').waitFor({ timeout: budget });
    const dir = tempDir('perm');
    // A command longer than a summary line: the card shows it whole, its tail included.
    const long = `touch ${dir}/yes; : ${'padding '.repeat(80)}the-tail-of-it`;
    await send(page, `[[bash:${long}]] tag:pa`);
    const card = page.getByTestId('turn').last().getByTestId('permission');
    await card.waitFor({ timeout: budget });
    expect(await card.getByTestId('permission-input').textContent()).toBe(long);
    expect(await page.getByTestId('running').textContent()).toContain('waiting for you: Bash');
    await shot(page, 'permission-phone');
    await card.getByTestId('permission-allow').click();
    await expect.poll(() => card.getAttribute('data-status'), { timeout: budget }).toBe('answered');
    await page.getByTestId('reply').last().waitFor({ timeout: budget });
    expect(fs.existsSync(`${dir}/yes`)).toBe(true);

    await send(page, `[[bash:touch ${dir}/no]] tag:pd`);
    const second = page.getByTestId('turn').last().getByTestId('permission');
    await second.waitFor({ timeout: budget });
    await second.getByTestId('permission-deny').click();
    await expect
      .poll(() => second.getByTestId('permission-result').textContent({ timeout: budget }), { timeout: budget })
      .toContain('Denied');
    await page.getByTestId('turn').last().getByTestId('reply').waitFor({ timeout: budget });
    expect(fs.existsSync(`${dir}/no`)).toBe(false);
    expect(app.problems).toEqual([]);
    await app.close();
  });
});
