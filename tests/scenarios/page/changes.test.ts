/**
 * The Changes view in a real browser, on a real gateway (real CLI against the mock Messages API,
 * real git, a bare remote on disk), at phone and desktop size: the agent edits two files and adds
 * one; the view shows the three with the right diffs (and the highlighter's colours), no sideways
 * scroll of the page and fingertip-sized controls on a phone; a comment on a line reaches the model
 * once, wrapped, quoting the line; the view follows a turn's end; a large file is collapsed with its
 * count and opened on a tap; the agent's proposed commit message fills the box; commit, a merge that
 * stops on a conflict and names it, merge, push and discard (confirmed, naming an ignored file) from
 * the page, each in the timeline. Screenshots of each size, light and dark, go to test-artifacts/web/.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKER_CLOSE, MARKER_OPEN } from '../../../src/security/wrap.js';
import { launch, openApp, shot } from '../../support/browser-rig.js';
import { editedConversation } from '../../support/chat-helpers.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { runGit } from '../../support/git-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { A_TXT, bareRemote, commitAll, projectRepo, statusLines, write } from '../../support/review-rig.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let browser: Browser;
let repo: string;
let bare: string;
let budget = 20_000;

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockApi();
  repo = projectRepo();
  bare = bareRemote(repo);
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    projects: { repo: { path: repo, worktrees: true } },
  });
  browser = await launch();
  budget = Math.min(90_000, Math.max(20_000, (Date.now() - t0) * 10));
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await mock?.close();
});

/** A conversation whose agent edited a.txt and b.txt and added src/parser.ts in its worktree. */
const edited = () => editedConversation({ gw, mock, budget });

const file = (page: Page, p: string) => page.locator(`[data-testid="change-file"][data-path="${p}"]`);
const lines = (page: Page, p: string) =>
  file(page, p)
    .getByTestId('diff-line')
    .evaluateAll((els) =>
      els.map((e) => [
        e.getAttribute('data-type'),
        e.getAttribute('data-old'),
        e.getAttribute('data-new'),
        (e.querySelector('.code')?.textContent ?? '').slice(1),
      ]),
    );

async function openChanges(page: Page): Promise<void> {
  await page.getByTestId('changes-toggle').click();
  await page.getByTestId('changes-summary').waitFor({ timeout: budget });
}

async function outcome(page: Page, action: string): Promise<{ ok: string; text: string }> {
  const o = page.locator(`[data-testid="review-outcome"][data-action="${action}"]`);
  await o.waitFor({ timeout: budget });
  return { ok: (await o.getAttribute('data-ok'))!, text: (await o.textContent()) ?? '' };
}

/** The page does not scroll sideways; only a diff's own box may. */
const pageFits = (page: Page) =>
  page.evaluate<boolean>(
    `(() => { const el = document.querySelector('.changes-scroll');
      return document.documentElement.scrollWidth <= innerWidth && el.scrollWidth <= el.clientWidth; })()`,
  );

describe('the Changes view (real browser, real CLI, real git)', () => {
  it('shows the three files with their diffs at phone and desktop size, light and dark', async () => {
    const { conv } = await edited();
    for (const size of ['phone', 'desktop'] as const)
      for (const dark of [false, true]) {
        const app = await openApp(browser, gw.ep, { size, dark, conversation: conv });
        const { page } = app;
        await openChanges(page);
        expect(await page.getByTestId('changes-branch').textContent()).toBe(`rudder/web/${conv}`);
        expect(await page.getByTestId('changes-base').textContent()).toBe('main');
        expect(await page.getByTestId('changes-counts').textContent()).toBe('3 files not committed · +2 −2');
        const files = page.getByTestId('change-file');
        expect(
          await files.evaluateAll((els) =>
            els.map((e) => [e.getAttribute('data-path'), e.getAttribute('data-status')]),
          ),
        ).toEqual([
          ['a.txt', 'modified'],
          ['b.txt', 'modified'],
          ['src/parser.ts', 'added'],
        ]);
        expect((await lines(page, 'a.txt')).filter((l) => l[0] !== 'ctx')).toEqual([
          ['del', '3', '', 'gamma'],
          ['add', '', '3', 'GAMMA'],
        ]);
        expect((await lines(page, 'b.txt')).filter((l) => l[0] !== 'ctx')).toEqual([['del', '2', '', 'two']]);
        expect(await lines(page, 'src/parser.ts')).toEqual([
          ['add', '', '1', 'export const parse = (s: string) => s;'],
        ]);
        // TypeScript through the lazy highlighter: its keyword is coloured.
        const ts = file(page, 'src/parser.ts').getByTestId('diff-lines');
        await expect.poll(() => ts.getAttribute('data-highlighted'), { timeout: budget }).toBe('yes');
        expect(await ts.locator('.hljs-keyword').first().textContent()).toBe('export');
        expect(await pageFits(page)).toBe(true);
        if (size === 'phone') {
          for (const id of ['changes-toggle', 'changes-back', 'changes-refresh', 'file-toggle', 'merge', 'discard'])
            for (const box of await page
              .getByTestId(id)
              .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => [r.width, r.height])))
              expect([id, box[0]! >= 44 && box[1]! >= 44]).toEqual([id, true]);
        } else {
          // A desktop may show the two sides apart.
          await page.getByTestId('split-toggle').click();
          await file(page, 'a.txt').locator('.sl').first().waitFor();
          expect(await pageFits(page)).toBe(true);
          await shot(page, `changes-desktop-split-${dark ? 'dark' : 'light'}`);
          await page.getByTestId('split-toggle').click();
        }
        await shot(page, `changes-${size}-${dark ? 'dark' : 'light'}`);
        expect(app.problems).toEqual([]);
        await app.close();
      }
  });

  // Many steps, each waiting up to the measured budget: on a busy machine the whole takes minutes.
  it('sends a line comment once, follows a turn, then commit, a conflict, merge, push and discard', async () => {
    const { conv, wt } = await edited();
    const app = await openApp(browser, gw.ep, { size: 'phone', conversation: conv });
    const { page } = app;
    await openChanges(page);

    // A comment on GAMMA (line 3 of the new a.txt), sent as one message.
    await file(page, 'a.txt').locator('[data-testid="diff-line"][data-new="3"][data-type="add"]').click();
    await page.getByTestId('comment-input').fill('Keep gamma lowercase. tag:page-cmt');
    // Another line of the same side makes it a range; what was typed stays.
    await file(page, 'a.txt').locator('[data-testid="diff-line"][data-new="4"]').click();
    await expect
      .poll(() => page.getByTestId('comment-form').locator('label').textContent(), { timeout: budget })
      .toMatch(/^Comment on lines 3–4/);
    expect(await page.getByTestId('comment-input').inputValue()).toBe('Keep gamma lowercase. tag:page-cmt');
    await shot(page, 'changes-phone-comment');
    await page.getByTestId('comment-add').click();
    expect(await page.getByTestId('draft-comment').textContent()).toContain('Keep gamma lowercase.');
    expect(await page.getByTestId('comment-tray').textContent()).toContain('1 comment on 1 file');
    await page.getByTestId('send-comments').click();
    expect((await outcome(page, 'comments')).text).toMatch(/1 comment sent as one message/);
    await expect
      .poll(() => mock.mainRequests().filter((r) => r.lastUserText.includes('tag:page-cmt')).length, {
        timeout: budget,
      })
      .toBe(1);
    const text = mock.mainRequests().find((r) => r.lastUserText.includes('tag:page-cmt'))!.lastUserText;
    expect(text.split(`<<<${MARKER_OPEN} `)).toHaveLength(2);
    expect(text.split(`<<<${MARKER_CLOSE} `)).toHaveLength(2);
    expect(text).toContain('1. a.txt, lines 3–4\n> +GAMMA\n>  delta\nKeep gamma lowercase. tag:page-cmt');

    // A turn that writes a file: the open view shows it once the turn ends, without a tap.
    const w = gw.watch(conv);
    await w.ready;
    const m = await gw.post(conv, `[[bash:echo notes > ${wt}/notes.txt]] tag:notes`);
    await w.waitReply(m.messageId, 'reply', budget);
    await file(page, 'notes.txt').waitFor({ timeout: budget });
    fs.rmSync(path.join(wt, 'notes.txt'));

    // A file too large to show inline is collapsed with its count and fetched whole on a tap; a long diff shows
    // its first lines until "Show all".
    write(wt, 'big.txt', Array.from({ length: 2000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    await page.getByTestId('changes-refresh').click();
    const big = file(page, 'big.txt');
    await big.getByTestId('file-collapsed').waitFor({ timeout: budget });
    expect(await big.getByTestId('file-collapsed').textContent()).toContain('A large change: 2,000 changed lines');
    await big.getByTestId('file-load').click();
    await big.getByTestId('show-all-lines').waitFor({ timeout: budget });
    expect(await big.getByTestId('diff-line').count()).toBe(80);
    expect(await big.getByTestId('show-all-lines').textContent()).toBe('Show all 2,000 lines');
    await big.getByTestId('show-all-lines').click();
    await expect.poll(() => big.getByTestId('diff-line').count(), { timeout: budget }).toBe(2000);
    expect(await big.getByTestId('diff-line').last().getAttribute('data-new')).toBe('2000');
    expect(await pageFits(page)).toBe(true);
    fs.rmSync(path.join(wt, 'big.txt'));
    await page.getByTestId('changes-refresh').click();
    await big.waitFor({ state: 'detached', timeout: budget });

    // The agent proposes a commit message on request (a message like any other); its proposal fills the box.
    mock.setScript((req) =>
      !req.side && !req.afterTool && req.lastText.includes('Propose a commit message')
        ? { kind: 'text', text: 'Here it is:\n```text\nUppercase gamma and add a parser\n```' }
        : undefined,
    );
    await page.getByTestId('propose-commit').click();
    await page.getByTestId('commit-proposal').waitFor({ timeout: budget });
    mock.setScript(undefined);
    expect(mock.mainRequests().filter((r) => r.lastUserText.includes('Propose a commit message'))).toHaveLength(1);
    await page.getByTestId('use-proposal').click();
    await expect
      .poll(() => page.getByTestId('commit-message').inputValue(), { timeout: budget })
      .toBe('Uppercase gamma and add a parser');

    // The GitHub CLI is not installed here: the page says so instead of offering the button.
    expect(await page.getByTestId('pr-unavailable').textContent()).toMatch(/needs the GitHub CLI/);

    await page.getByTestId('commit-message').fill('Uppercase gamma, drop two, add a parser');
    await page.getByTestId('commit').click();
    const committed = await outcome(page, 'commit');
    expect(committed).toMatchObject({ ok: 'yes' });
    expect(committed.text).toMatch(/^Committed 3 files \([0-9a-f]{7}\): Uppercase gamma, drop two, add a parser$/);
    await expect
      .poll(() => page.getByTestId('changes-counts').textContent(), { timeout: budget })
      .toMatch(/^1 commit ahead of main/);
    expect(await page.getByTestId('committed').getByTestId('change-file').count()).toBe(3);

    // A conflicting change on the base: the merge stops, names the file, and leaves the base as it was.
    write(repo, 'a.txt', A_TXT.replace('gamma', 'gamma on main'));
    const baseHead = commitAll(repo, 'main edits gamma');
    await page.getByTestId('changes-refresh').click();
    await page.getByTestId('merge').click();
    await page.getByTestId('merge-yes').click();
    const conflict = await outcome(page, 'merge');
    expect(conflict.ok).toBe('no');
    expect(conflict.text).toContain('stopped on a conflict in this file; nothing was changed');
    expect(await page.getByTestId('conflict-files').textContent()).toBe('a.txt');
    await shot(page, 'changes-phone-conflict');
    expect(runGit(repo, 'rev-parse', 'HEAD')).toBe(baseHead);
    expect(statusLines(repo)).toEqual([]);
    runGit(repo, 'reset', '-q', '--hard', 'HEAD~1');

    await expect.poll(() => page.getByTestId('merge').isEnabled(), { timeout: budget }).toBe(true);
    await page.getByTestId('merge').click();
    await page.getByTestId('merge-yes').click();
    expect(await outcome(page, 'merge')).toMatchObject({
      ok: 'yes',
      text: 'Merged into main (fast-forward, 1 commit).',
    });
    expect(runGit(repo, 'log', '--format=%s', '-1')).toBe('Uppercase gamma, drop two, add a parser');

    await page.getByTestId('push').click();
    expect((await outcome(page, 'push')).text).toMatch(
      new RegExp(`^Pushed rudder/web/${conv} to origin \\([0-9a-f]{7}\\)\\.$`),
    );
    expect(runGit(bare, 'log', '--format=%s', '-1', `rudder/web/${conv}`)).toBe(
      'Uppercase gamma, drop two, add a parser',
    );

    // Discard: the confirmation names every path, the ignored .env too; only its button removes them.
    write(wt, 'scratch.txt', 'notes\n');
    write(wt, '.env', 'TOKEN=x\n');
    await page.getByTestId('changes-refresh').click();
    await page.getByTestId('discard').click();
    await page.getByTestId('discard-files').waitFor({ timeout: budget });
    const listed = page.getByTestId('discard-files').locator('li');
    expect(
      (await listed.evaluateAll((els) => els.map((e) => [e.textContent, e.getAttribute('data-state')])))
        .map(([t, s]) => `${t} ${s}`)
        .sort(),
    ).toEqual(['.env ignored ignored', 'scratch.txt untracked untracked']);
    await shot(page, 'changes-phone-discard');
    await page.getByTestId('discard-no').click();
    expect(fs.existsSync(path.join(wt, '.env'))).toBe(true);
    await page.getByTestId('discard').click();
    await page.getByTestId('discard-yes').click();
    expect((await outcome(page, 'discard')).text).toBe('Discarded 2 uncommitted paths.');
    expect(statusLines(wt)).toEqual([]);

    // Back in the conversation, each action is in its timeline.
    await page.getByTestId('changes-back').click();
    const notes = page.getByTestId('review-note');
    await expect.poll(() => notes.count(), { timeout: budget }).toBe(5);
    expect(
      await notes.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-action')} ${e.getAttribute('data-ok')}`)),
    ).toEqual(['commit yes', 'merge no', 'merge yes', 'push yes', 'discard yes']);
    expect(app.problems).toEqual([]);
    await app.close();
  }, 240_000);
});
