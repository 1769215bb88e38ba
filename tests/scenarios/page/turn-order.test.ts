/**
 * A turn reads in the order it happened, and only what is for the person, in a real browser on a
 * real gateway (real CLI, mock Messages API), at 390×844 and 1280×800, light and dark: a tool the
 * person stopped says "stopped by you" and keeps the CLI's words to the model behind a tap; a
 * permission request sits in the tool call it asked about, before that tool's output, live and
 * after a reload; a turn's "Done" line comes after everything the turn did (a retry notice, the
 * reply) and before what came after it (the stop's notice). For a screen reader the conversation
 * is a log, the turn's state a status, and a permission request an alert that names itself in the
 * page's title. axe finds no serious or critical violation in any of these states.
 */
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../support/axe.js';
import { LOOKS, lookName, openLook, shot, useWebGateway } from '../../support/browser-rig.js';
import { send } from '../../support/chat-helpers.js';
import { mockAgentEnv, tempDir } from '../../support/claude-rig.js';
import { agentConfig } from '../../support/gateway-rig.js';

/** Requests seen per tag: the first request of a `tag:retry` message fails with a 500, the CLI retries. */
const seen = new Map<string, number>();

const rig = useWebGateway((mock) => {
  const home = tempDir('chome');
  return {
    // The CLI retries a failed request once here (the rig's default is never), and says so.
    agent: agentConfig(mock.url, home, { env: { ...mockAgentEnv(mock.url, home), CLAUDE_CODE_MAX_RETRIES: '2' } }),
    projects: { main: { path: tempDir('main') }, ask: { path: tempDir('ask'), permissionMode: 'relay' } },
    defaultProject: 'main',
  };
});

beforeAll(() =>
  rig.mock.setScript((req) => {
    if (req.side || req.afterTool) return undefined;
    const tag = /tag:(retry\w*)/.exec(req.lastText)?.[1];
    if (!tag) return undefined;
    const n = (seen.get(tag) ?? 0) + 1;
    seen.set(tag, n);
    return n === 1 ? { kind: 'error', status: 500 } : undefined;
  }),
);

/** Whether a comes before b in the document. */
async function precedes(a: Locator, b: Locator): Promise<boolean> {
  const other = await b.elementHandle();
  return a.evaluate((x, y) => !!(x.compareDocumentPosition(y as never) & 4), other);
}

/** Whether the CLI's words to the model about the stop are in view in this tool step. */
const toldShown = (tool: Locator) =>
  tool
    .getByText(/doesn't want to proceed|Correction to the text above|instruction to stop/)
    .first()
    .isVisible();

/** The turn's state as the status region says it, once it says what is wanted (or after the rig.budget). */
async function turnState(page: Page, wanted: RegExp): Promise<string> {
  const region = page.locator('[role="status"][data-testid="turn-state"]');
  const until = Date.now() + rig.budget;
  let text = '';
  do {
    text = (await region.count()) ? ((await region.textContent()) ?? '') : '';
    if (wanted.test(text)) return text;
    await new Promise((r) => setTimeout(r, 100));
  } while (Date.now() < until);
  return text;
}

async function newConversation(project: string): Promise<string> {
  const made = await rig.gw.api('POST', '/api/conversations', { project });
  return ((await made.json()) as { id: string }).id;
}

async function noSerious(page: Page, what: string): Promise<void> {
  expect.soft([what, await seriousViolations(page)]).toEqual([what, []]);
}

describe('a turn in the order it happened (real browser, real CLI)', () => {
  for (const v of LOOKS) {
    const name = (scene: string) => `${scene}-${lookName(v)}`;
    const open = (conversation: string) => openLook(rig.browser, rig.gw.ep, v, conversation);

    it(`${name('stop')}: a tool stopped by the person says so; what the model was told is a tap away`, async () => {
      const conv = await newConversation('main');
      const app = await open(conv);
      const { page } = app;
      await send(page, `run the long one [[bash:echo started; sleep 30]] tag:${v.size}`);
      const tool = page.getByTestId('tool-step').last();
      await expect.poll(() => tool.getAttribute('data-status'), { timeout: rig.budget }).toBe('running');
      // For a screen reader: the conversation is a log, the turn's state a status that says it works.
      expect.soft(await page.locator('[role="log"]').getByTestId('turn').count()).toBe(1);
      expect.soft(await turnState(page, /Working/)).toMatch(/Working/);
      await noSerious(page, 'running');
      await page.getByTestId('stop').click();
      const turn = page.getByTestId('turn').last();
      await expect.poll(() => turn.getAttribute('data-status'), { timeout: rig.budget }).toBe('stopped');
      await expect.poll(() => tool.getAttribute('data-stopped'), { timeout: rig.budget }).toBe('yes');
      expect(await tool.getByTestId('tool-stopped').textContent()).toContain('Stopped by you');
      // The CLI's words to the model are not the person's to read unless they ask.
      expect(await toldShown(tool)).toBe(false);
      expect.soft(await turnState(page, /Stopped/)).toMatch(/Stopped/);
      // The stop's notice came after the turn ended: below its "Stopped" line.
      const notice = turn.getByTestId('notice').last();
      await notice.waitFor({ timeout: rig.budget });
      expect(await precedes(turn.getByTestId('turn-status'), notice)).toBe(true);
      await tool.scrollIntoViewIfNeeded();
      await noSerious(page, 'stopped');
      await shot(page, name('stopped-turn'));
      await tool.getByTestId('tool-told').locator('summary').click();
      expect(await toldShown(tool)).toBe(true);

      // After a reload it reads the same.
      await page.reload();
      const again = page.getByTestId('tool-step').last();
      await expect.poll(() => again.getAttribute('data-stopped'), { timeout: rig.budget }).toBe('yes');
      expect(await toldShown(again)).toBe(false);
      expect(app.problems).toEqual([]);
      await app.close();
    });

    it(`${name('permission')}: the request sits in its tool call, before the output; an alert names it`, async () => {
      const conv = await newConversation('ask');
      const app = await open(conv);
      const { page } = app;
      await page.getByTestId('input').waitFor({ timeout: rig.budget });
      // A command that writes (echo alone is one the CLI runs without asking).
      const dir = tempDir('asked');
      await send(page, `[[bash:touch ${dir}/done && echo allowed-${v.size}]] tag:perm`);
      const tool = page.getByTestId('tool-step').last();
      const card = tool.getByTestId('permission');
      await card.getByTestId('permission-allow').waitFor({ timeout: rig.budget });
      const alert = page.locator('[role="alert"][data-testid="permission-alert"]');
      await expect.poll(() => alert.textContent(), { timeout: rig.budget }).toContain('Bash');
      expect(await page.title()).toContain('Bash');
      await noSerious(page, 'permission open');
      await shot(page, name('permission-waiting'));
      await card.getByTestId('permission-allow').click();
      await expect.poll(() => tool.getAttribute('data-status'), { timeout: rig.budget }).toBe('ok');
      const output = tool.locator('.output');
      await output.waitFor({ timeout: rig.budget });
      expect(await output.textContent()).toContain(`allowed-${v.size}`);
      expect(await precedes(card, output)).toBe(true);
      await page.getByTestId('reply').last().waitFor({ timeout: rig.budget });
      await expect.poll(() => page.title(), { timeout: rig.budget }).not.toContain('Bash');
      await tool.scrollIntoViewIfNeeded();
      await noSerious(page, 'permission answered');
      await shot(page, name('permission-in-place'));

      await page.reload();
      const reloaded = page.getByTestId('tool-step').last();
      await reloaded.locator('.output').waitFor({ timeout: rig.budget });
      expect(await reloaded.getByTestId('permission').count()).toBe(1);
      expect(await precedes(reloaded.getByTestId('permission'), reloaded.locator('.output'))).toBe(true);
      expect(app.problems).toEqual([]);
      await app.close();
    });

    it(`${name('done')}: "Done" comes after the turn's retry notice and its reply`, async () => {
      const conv = await newConversation('main');
      const app = await open(conv);
      const { page } = app;
      await send(page, `answer after a retry tag:retry${v.size}${v.dark ? 'd' : 'l'}`);
      const turn = page.getByTestId('turn').last();
      const reply = turn.getByTestId('reply');
      await reply.waitFor({ timeout: rig.budget });
      const retry = turn.getByTestId('step-notice').filter({ hasText: 'retrying' });
      await retry.waitFor({ timeout: rig.budget });
      const status = turn.getByTestId('turn-status');
      expect(await status.textContent()).toMatch(/^Done/);
      expect(await precedes(retry, status)).toBe(true);
      expect(await precedes(reply, status)).toBe(true);
      expect.soft(await turnState(page, /Done/)).toMatch(/Done/);
      await noSerious(page, 'done');
      await page.reload();
      const reloaded = page.getByTestId('turn').last();
      await reloaded.getByTestId('reply').waitFor({ timeout: rig.budget });
      expect(await precedes(reloaded.getByTestId('reply'), reloaded.getByTestId('turn-status'))).toBe(true);
      expect(app.problems).toEqual([]);
      await app.close();
    });
  }
});
