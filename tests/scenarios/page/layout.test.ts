/**
 * The web app at phone and desktop sizes in a real browser, on a real gateway (real CLI, mock
 * Messages API): no sideways scroll, a wide enough input, the drawer, touch targets, and a message
 * sent and answered. Screenshots of each size, light and dark, go to test-artifacts/web/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openApp, SIZES, shot } from '../../support/browser-rig.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let browser: Browser;
let budget = 20_000;

const WIDE = [
  'Found it. The test waits on a **fixed sleep**; replace it with a wait on the login event:',
  '',
  '```ts',
  "await page.waitForResponse((r) => r.url().endsWith('/api/login') && r.status() === 200); // a long line " +
    'that must scroll inside its block, not the page',
  '```',
  '',
  '| file | before | after | note |',
  '| --- | --- | --- | --- |',
  '| tests/login.spec.ts | sleep(2000) | waitForResponse | the flaky one, on every CI run since Tuesday |',
  '',
  'See https://example.com/a/very/long/path/that/does/not/break/anywhere/on/its/own/and/keeps/going/and/going' +
    ' for the background.',
  '',
  '1. Run the suite',
  '2. Check CI',
].join('\n');

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockApi();
  // The agent works in a scratch project: a file it reads and edits.
  const project = tempDir('proj');
  const file = path.join(project, 'login.spec.ts');
  fs.writeFileSync(
    file,
    "test('logs in', async ({ page }) => {\n  await page.click('#login');\n  await sleep(2000);\n  " +
      "expect(await page.title()).toBe('Home');\n});\n",
  );
  // "wide": a tool call, then wide Markdown. "edit": Read the file, Edit it, then a short answer.
  let script: 'wide' | 'edit-read' | 'edit-edit' | undefined;
  mock.setScript((req) => {
    if (req.side) return undefined;
    if (!req.afterTool) {
      script = req.lastText.includes('tag:wide') ? 'wide' : req.lastText.includes('tag:edit') ? 'edit-read' : undefined;
      if (script === 'edit-read')
        return ((script = 'edit-edit'), { kind: 'tool', name: 'Read', input: { file_path: file } });
      return undefined;
    }
    if (script === 'wide') return ((script = undefined), { kind: 'text', text: WIDE });
    if (script === 'edit-edit')
      return (
        (script = undefined),
        {
          kind: 'tool',
          name: 'Edit',
          input: {
            file_path: file,
            old_string: '  await sleep(2000);',
            new_string: "  await page.waitForResponse((r) => r.url().endsWith('/api/login'));",
          },
        }
      );
    return undefined;
  });
  gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome'), { cwd: project }) });
  browser = await launch();
  // A conversation worth looking at: a tool call and a wide reply.
  const w = gw.watch('demo');
  await w.ready;
  await gw.api('PATCH', '/api/conversations/demo', { title: 'Fix the flaky login test' });
  const m = await gw.post(
    'demo',
    'The login test fails on CI about once in five runs. Find out why. [[bash:echo "running ' +
      'tests/login.spec.ts"; sleep 1; echo "1 failed, 41 passed"]] tag:wide',
  );
  await w.waitReply(m.messageId, 'reply', 60_000);
  const e = await gw.post('demo', 'Go ahead and fix it. tag:edit');
  await w.waitReply(e.messageId, 'reply', 60_000);
  expect(fs.readFileSync(file, 'utf8')).toContain('waitForResponse');
  budget = Math.min(60_000, Math.max(20_000, (Date.now() - t0) * 3));
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await mock?.close();
});

async function noSidewaysScroll(page: Page): Promise<void> {
  const { scroll, inner } = await page.evaluate<{ scroll: number; inner: number }>(
    '({ scroll: document.documentElement.scrollWidth, inner: innerWidth })',
  );
  expect(scroll).toBeLessThanOrEqual(inner);
}

describe('layout (real browser, real CLI)', () => {
  for (const size of ['phone', 'small'] as const) {
    it(
      `at ${SIZES[size].width}×${SIZES[size].height}: no sideways scroll, a wide input, a drawer, and a ` +
        `message answered`,
      async () => {
        const app = await openApp(browser, gw.ep, { size, conversation: 'demo' });
        const { page } = app;
        await page.getByTestId('reply').first().waitFor({ timeout: budget });
        await noSidewaysScroll(page);
        const input = await page.getByTestId('input').boundingBox();
        expect(input!.width).toBeGreaterThanOrEqual(280);
        for (const id of ['drawer-toggle', 'send', 'conversation-menu']) {
          const box = await page.getByTestId(id).boundingBox();
          expect([id, box!.width >= 44 && box!.height >= 44]).toEqual([id, true]);
        }

        // The list is a drawer: closed, then open over the conversation, then closed again.
        const list = page.getByTestId('conversations');
        expect(await list.isVisible()).toBe(false);
        await page.getByTestId('drawer-toggle').click();
        await list.waitFor({ state: 'visible' });
        await expect.poll(async () => (await page.getByTestId('drawer').boundingBox())!.x).toBe(0);
        expect(
          await page
            .getByTestId('conversation')
            .first()
            .boundingBox()
            .then((b) => b!.height),
        ).toBeGreaterThanOrEqual(44);
        await page.getByTestId('drawer-backdrop').click({ position: { x: SIZES[size].width - 10, y: 200 } });
        await list.waitFor({ state: 'hidden' });
        await page.getByTestId('drawer-toggle').click();
        await list.waitFor({ state: 'visible' });
        await page.getByTestId('conversation').first().click();
        await list.waitFor({ state: 'hidden' });

        // A message sent from the phone, and its reply read there.
        const tag = `ph${SIZES[size].width}`;
        await page.getByTestId('input').fill(`from the phone tag:${tag}`);
        await page.getByTestId('send').click();
        const reply = page.getByTestId('reply').filter({ hasText: `ok tag:${tag}` });
        await reply.waitFor({ timeout: budget });
        expect(await reply.isVisible()).toBe(true);
        await noSidewaysScroll(page);
        // A long message makes the input grow (up to a bound), never the page wider.
        await page.getByTestId('input').fill('line\n'.repeat(12));
        const grown = await page.getByTestId('input').boundingBox();
        expect(grown!.height).toBeGreaterThan(input!.height * 2);
        expect(grown!.height).toBeLessThanOrEqual(SIZES[size].height * 0.45);
        await noSidewaysScroll(page);
        expect(app.problems).toEqual([]);
        await app.close();
      },
    );
  }

  it('desktop keeps two panes', async () => {
    const app = await openApp(browser, gw.ep, { size: 'desktop', conversation: 'demo' });
    const { page } = app;
    await page.getByTestId('reply').first().waitFor({ timeout: budget });
    expect(await page.getByTestId('conversations').isVisible()).toBe(true);
    expect(await page.getByTestId('drawer-toggle').isVisible()).toBe(false);
    const list = await page.getByTestId('drawer').boundingBox();
    const input = await page.getByTestId('input').boundingBox();
    expect(input!.x).toBeGreaterThanOrEqual(list!.x + list!.width);
    await noSidewaysScroll(page);
    await app.close();
  });

  it('writes screenshots at desktop and phone sizes, light and dark', async () => {
    const files: string[] = [];
    for (const size of ['desktop', 'phone', 'small'] as const) {
      for (const dark of [false, true]) {
        const app = await openApp(browser, gw.ep, { size, dark, conversation: 'demo' });
        const { page } = app;
        await page.getByTestId('diff').first().waitFor({ timeout: budget });
        await page.locator('pre code.hljs').first().waitFor({ timeout: budget });
        expect(await page.evaluate<boolean>("matchMedia('(prefers-color-scheme: dark)').matches")).toBe(dark);
        files.push(await shot(page, `${size}-${dark ? 'dark' : 'light'}`));
        await page.getByTestId('log').evaluate((el) => (el.scrollTop = 0));
        files.push(await shot(page, `${size}-${dark ? 'dark' : 'light'}-top`));
        if (size !== 'desktop') {
          await page.getByTestId('drawer-toggle').click();
          await page.getByTestId('conversations').waitFor({ state: 'visible' });
          await expect.poll(async () => (await page.getByTestId('drawer').boundingBox())!.x).toBe(0);
          files.push(await shot(page, `${size}-${dark ? 'dark' : 'light'}-drawer`));
        }
        expect(app.problems).toEqual([]);
        await app.close();
      }
    }
    expect(files).toHaveLength(16);
  });
});
