/**
 * A turn's tool steps, in a real browser on a real gateway (real CLI, mock Messages API), at phone
 * and desktop size: every step's header opens to its whole input (a command longer than the
 * header line, a long path); an error's output wraps instead of scrolling sideways; a real Edit and
 * a real Write, run by the CLI on a scratch project, are drawn as diffs, a long line and a large
 * file collapsed until a tap opens them.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openApp, shot } from '../../support/browser-rig.js';
import { send, style } from '../../support/chat-helpers.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, type MockReply, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let browser: Awaited<ReturnType<typeof launch>>;
let budget = 20_000;
const project = tempDir('steps');
const deep = path.join(project, 'a-folder-with-a-long-name', 'and-another-one-inside-it', 'and-a-third');
const LONG_LINE = `export const settings = { ${Array.from({ length: 40 }, (_, i) => `option${i}: ${i}`).join(', ')} };`;
const WRITTEN = Array.from({ length: 120 }, (_, i) => `line ${i + 1} of a new file`).join('\n');

/** The tool calls the mock answers with, one per request, for the message tagged `diff`. */
let plan: MockReply[] = [];

beforeAll(async () => {
  const t0 = Date.now();
  fs.mkdirSync(deep, { recursive: true });
  mock = await startMockApi();
  mock.setScript((req) => {
    if (req.side) return undefined;
    if (!req.afterTool && req.lastText.includes('tag:diff')) plan = diffPlan(req.lastText);
    else if (!req.afterTool) plan = [];
    return plan.shift();
  });
  gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome'), { cwd: project }) });
  browser = await launch();
  budget = Math.min(60_000, Math.max(20_000, (Date.now() - t0) * 10));
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await mock?.close();
});

/** Read the file (the CLI edits only what it has read), Edit it with a long line, Write a large new file. */
function diffPlan(text: string): MockReply[] {
  const size = /tag:diff(\w+)/.exec(text)![1]!;
  const file = path.join(deep, `config-${size}.ts`);
  fs.writeFileSync(file, 'export const a = 1;\nexport const settings = {};\nexport const b = 2;\n');
  return [
    { kind: 'tool', name: 'Read', input: { file_path: file } },
    {
      kind: 'tool',
      name: 'Edit',
      input: { file_path: file, old_string: 'export const settings = {};', new_string: LONG_LINE },
    },
    { kind: 'tool', name: 'Write', input: { file_path: path.join(deep, `new-${size}.txt`), content: WRITTEN } },
    { kind: 'text', text: `edited and written tag:diff${size}` },
  ];
}

/** Opens a step's header the way this device would and returns the whole input it shows. */
async function openInput(step: Locator, touch: boolean): Promise<string> {
  const head = step.locator('.tool-head, [data-testid="tool-head"]').first();
  await (touch ? head.tap() : head.click());
  return (await step.textContent()) ?? '';
}

async function noSideways(page: Page, selector: string): Promise<void> {
  const over = await page
    .locator(selector)
    .evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent?.slice(0, 40)));
  expect(over).toEqual([]);
  const page_ = await page.evaluate<number>('document.documentElement.scrollWidth - innerWidth');
  expect(page_).toBeLessThanOrEqual(0);
}

describe('tool steps and diffs (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    const touch = size === 'phone';

    it(`at ${size} size: a step's header opens to its whole input; an error's output wraps`, async () => {
      const app = await openApp(browser, gw.ep, { size, conversation: `steps-${size}` });
      const { page } = app;
      const long = `echo start; : ${'padding '.repeat(50)}the-tail-of-it-${size}`;
      await send(page, `[[bash:${long}]] tag:t${size}`);
      const step = page.getByTestId('tool-step').filter({ hasText: 'echo start' });
      await expect.poll(() => step.getAttribute('data-status'), { timeout: budget }).toBe('ok');
      // The header line cannot hold it: its tail is not in it until the step is opened.
      expect(await step.textContent()).not.toContain(`the-tail-of-it-${size}`);
      expect(await openInput(step, touch)).toContain(long);
      await page.getByTestId('turn').last().getByTestId('reply').waitFor({ timeout: budget });

      const missing = `/nonexistent/${'a-directory-with-a-rather-long-name/'.repeat(6)}file-${size}`;
      await send(page, `[[bash:ls ${missing}]] tag:e${size}`);
      const failed = page.getByTestId('tool-step').filter({ hasText: 'ls /nonexistent' });
      await expect.poll(() => failed.getAttribute('data-status'), { timeout: budget }).toBe('error');
      const output = failed.locator('.output pre');
      expect(await output.textContent()).toContain(`file-${size}`);
      await noSideways(page, '.tool .output pre');
      expect(await style(output, 'white-space')).toBe('pre-wrap');
      await page.getByTestId('turn').last().getByTestId('reply').waitFor({ timeout: budget });
      expect(app.problems).toEqual([]);
      await app.close();
    });

    it(`at ${size} size: a real Edit and Write are drawn as diffs, collapsed until a tap opens them`, async () => {
      const app = await openApp(browser, gw.ep, { size, conversation: `diff-${size}` });
      const { page } = app;
      await send(page, `change the settings and write the list tag:diff${size}`);
      await page
        .getByTestId('reply')
        .filter({ hasText: `edited and written tag:diff${size}` })
        .waitFor({ timeout: budget });
      // The CLI really ran them.
      expect(fs.readFileSync(path.join(deep, `config-${size}.ts`), 'utf8')).toContain(LONG_LINE);
      expect(fs.readFileSync(path.join(deep, `new-${size}.txt`), 'utf8')).toBe(WRITTEN);

      const edit = page.locator('[data-testid="tool-step"][data-tool="Edit"]');
      const write = page.locator('[data-testid="tool-step"][data-tool="Write"]');
      await expect.poll(() => edit.getAttribute('data-status'), { timeout: budget }).toBe('ok');
      const editDiff = edit.getByTestId('diff');
      expect(await editDiff.locator('.del').allTextContents()).toEqual([
        expect.stringContaining('export const settings = {};'),
      ]);
      // The long line is shown in part until opened.
      const added = editDiff.locator('.add');
      expect(await added.textContent()).not.toContain('option39: 39');
      expect(await added.textContent()).toContain('more characters');
      await shot(page, `diff-collapsed-${size}`);
      const openEdit = editDiff.getByTestId('diff-expand');
      await (touch ? openEdit.tap() : openEdit.click());
      expect(await added.textContent()).toContain(LONG_LINE);

      // The large file: its first lines, then all of them on a tap.
      const writeDiff = write.getByTestId('diff');
      const rows = writeDiff.locator('.add');
      const shown = await rows.count();
      expect(shown).toBeGreaterThan(10);
      expect(shown).toBeLessThan(120);
      const openWrite = writeDiff.getByTestId('diff-expand');
      expect(await openWrite.textContent()).toContain('120');
      await (touch ? openWrite.tap() : openWrite.click());
      await expect.poll(() => rows.count()).toBe(120);
      expect(await rows.last().textContent()).toContain('line 120 of a new file');
      await noSideways(page, '.tool .diff pre');

      // The whole input of each is a tap away, the path whole.
      expect(await openInput(write, touch)).toContain(path.join(deep, `new-${size}.txt`));
      await shot(page, `diff-open-${size}`);
      expect(app.problems).toEqual([]);
      await app.close();
    });
  }
});
