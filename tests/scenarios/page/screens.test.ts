/**
 * Screenshots for a person to look at (test-artifacts/web/, not committed), at 390×844 (touch, 3×)
 * and 1280×800, light and dark, on a real gateway (real CLI, mock Messages API, real git): a long
 * turn with a diff, a permission request, a failed send with Retry, the jump-to-latest button,
 * and the conversation list with project and waiting badges. Each scene is checked for what makes
 * it worth a look (it is there, nothing scrolls sideways, no script error).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openApp, shot } from '../../support/browser-rig.js';
import { scrollBy, send } from '../../support/chat-helpers.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, type MockReply, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let browser: Awaited<ReturnType<typeof launch>>;
let budget = 20_000;
const repo = tempDir('shots');
const api = tempDir('shots-api');
const file = path.join(repo, 'src', 'login.spec.ts');

const ANSWER = [
  'The test waited on a **fixed sleep**. It now waits for the login response instead:',
  '',
  '| file | before | after |',
  '| --- | ---: | ---: |',
  '| src/login.spec.ts | 2000 ms | 180 ms |',
  '',
  '```ts',
  "await page.waitForResponse((r) => r.url().endsWith('/api/login'));",
  '```',
].join('\n');
const LONG = Array.from({ length: 40 }, (_, i) => `Point ${i + 1}: a line of a long answer.`).join('\n\n');

let plan: MockReply[] = [];
function fixPlan(): MockReply[] {
  return [
    { kind: 'tool', name: 'Read', input: { file_path: file } },
    {
      kind: 'tool',
      name: 'Bash',
      input: { command: 'echo "src/login.spec.ts: 1 failed, 41 passed (the login wait)"', description: 'Run' },
    },
    {
      kind: 'tool',
      name: 'Edit',
      input: {
        file_path: file,
        old_string: '  await sleep(2000);',
        new_string: "  await page.waitForResponse((r) => r.url().endsWith('/api/login') && r.status() === 200);",
      },
    },
    { kind: 'text', text: ANSWER },
  ];
}

beforeAll(async () => {
  const t0 = Date.now();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    "test('logs in', async ({ page }) => {\n  await page.click('#login');\n  await sleep(2000);\n" +
      "  expect(await page.title()).toBe('Home');\n});\n",
  );
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args]);
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'first');
  mock = await startMockApi();
  mock.setScript((req) => {
    if (req.side) return undefined;
    if (!req.afterTool) plan = req.lastText.includes('tag:fix') ? fixPlan() : [];
    if (!req.afterTool && req.lastText.includes('tag:long')) return { kind: 'text', text: LONG };
    return plan.shift();
  });
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    projects: { web: { path: repo, worktrees: true }, api: { path: api, permissionMode: 'relay' } },
    defaultProject: 'web',
  });
  browser = await launch();
  // The scenes on the gateway: a turn with a diff, a request waiting, a long conversation.
  await turn('fix', 'Fix the flaky login test. tag:fix', 'Fix the flaky login test');
  await turn('long', 'Tell me everything tag:long', 'A long answer');
  await turn('long', 'And more tag:long');
  const w = gw.watch('perm');
  await w.ready;
  await gw.post('perm', '/project api');
  await w.wait('reply', () => true, 60_000);
  await gw.api('PATCH', '/api/conversations/perm', { title: 'Clean the build folder' });
  await gw.post('perm', `Clean up the old build. [[bash:rm -rf ${api}/build && mkdir -p ${api}/build]]`);
  await w.wait('step', (d) => (d.step as { kind: string }).kind === 'permission', 60_000);
  budget = Math.min(60_000, Math.max(20_000, (Date.now() - t0) * 3));
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await mock?.close();
});

async function turn(conv: string, text: string, title?: string): Promise<void> {
  const w = gw.watch(conv);
  await w.ready;
  if (title) await gw.api('PATCH', `/api/conversations/${conv}`, { title });
  const m = await gw.post(conv, text);
  await w.waitReply(m.messageId, 'reply', 60_000);
}

async function noSideways(page: Page): Promise<void> {
  expect(await page.evaluate<number>('document.documentElement.scrollWidth - innerWidth')).toBeLessThanOrEqual(0);
  const log = page.getByTestId('log');
  if (await log.count()) expect(await log.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
}

const VARIANTS = [
  { size: 'phone', dark: false },
  { size: 'phone', dark: true },
  { size: 'desktop', dark: false },
  { size: 'desktop', dark: true },
] as const;

describe('screenshots of the scenes a person trips on (real browser, real CLI)', () => {
  for (const v of VARIANTS) {
    const name = (scene: string) => `scene-${scene}-${v.size}-${v.dark ? 'dark' : 'light'}`;
    const open = (conversation: string, serviceWorkers?: 'block') =>
      openApp(browser, gw.ep, {
        size: v.size,
        dark: v.dark,
        conversation,
        serviceWorkers,
        ...(v.size === 'phone' ? { scale: 3 } : {}),
      });

    it(`${v.size} ${v.dark ? 'dark' : 'light'}: a turn with a diff, a permission request, a failed send`, async () => {
      const diff = await open('fix');
      await diff.page.getByTestId('diff').waitFor({ timeout: budget });
      await diff.page.locator('pre code.hljs').first().waitFor({ timeout: budget });
      await diff.page.locator('[data-testid="tool-step"][data-tool="Edit"]').scrollIntoViewIfNeeded();
      await noSideways(diff.page);
      await shot(diff.page, name('diff'));
      expect(diff.problems).toEqual([]);
      await diff.close();

      const perm = await open('perm');
      await perm.page.getByTestId('permission-allow').waitFor({ timeout: budget });
      await noSideways(perm.page);
      await shot(perm.page, name('permission'));
      expect(perm.problems).toEqual([]);
      await perm.close();

      // The network drops the POST: the message stays, with Retry, Edit and Delete.
      const fail = await open('fix', 'block');
      await fail.page.getByTestId('reply').waitFor({ timeout: budget });
      await fail.context.route('**/api/conversations/*/messages', (r) =>
        r.request().method() === 'POST' ? r.abort('internetdisconnected') : r.fallback(),
      );
      await send(fail.page, 'Also run the whole suite once more before you stop.');
      await fail.page.getByTestId('retry').waitFor({ timeout: budget });
      await noSideways(fail.page);
      await shot(fail.page, name('failed-send'));
      expect(fail.problems).toEqual([]);
      await fail.close();
    });

    it(`${v.size} ${v.dark ? 'dark' : 'light'}: the jump-to-latest button and the list with badges`, async () => {
      const app = await open('long');
      const { page } = app;
      await expect.poll(() => page.getByTestId('reply').count(), { timeout: budget }).toBeGreaterThanOrEqual(2);
      await scrollBy(page, -700);
      await page.getByTestId('jump-latest').waitFor({ timeout: budget });
      const before = await page.getByTestId('reply').count();
      const m = await gw.post('long', 'One more thing tag:long');
      await expect.poll(() => page.getByTestId('reply').count(), { timeout: budget }).toBe(before + 1);
      await page.getByTestId('jump-count').waitFor({ timeout: budget });
      expect(m.disposition).toBe('turn');
      await shot(page, name('jump-latest'));

      if (v.size === 'phone') {
        await page.getByTestId('drawer-toggle').click();
        await expect.poll(async () => (await page.getByTestId('drawer').boundingBox())!.x).toBe(0);
      }
      const perm = page.locator('[data-testid="conversation"][data-id="perm"]');
      await perm.getByTestId('waiting').waitFor({ timeout: budget });
      await page.locator('[data-testid="conversation"][data-id="fix"] [data-testid="item-branch"]').waitFor();
      await noSideways(page);
      await shot(page, name('list'));
      expect(app.problems).toEqual([]);
      await app.close();
    });
  }
});
