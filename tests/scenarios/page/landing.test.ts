/**
 * Landing the agent's work from the Changes view takes no second guess, in a real browser on a real
 * gateway (real CLI, mock Messages API, real git, a bare remote on disk): the summary says what is
 * not committed yet; on a phone the diff keeps its width for code (one narrow line-number column)
 * and the actions are laid out as a phone app's (one primary action across, the rest in a row);
 * push says why it cannot run before there is a remote; a commit a hook refuses keeps the message;
 * a merge asks first, naming the base and the commits; after a conflict the primary action asks
 * the agent to resolve it (one message, through the normal door, naming the files and the base's
 * change); one outcome shows at a time, by its action, and goes when new changes come; after a
 * merge the view says so; a push names its remote, not its path. For a keyboard and a screen
 * reader: a diff is one Tab stop, its lines say added or removed, an empty one has a name, each is
 * at least 24 px high, the commit box has a name. axe finds no serious or critical violation.
 * Screenshots of the actions, a failed commit and a conflict, light and dark, at 390×844 and
 * 1280×800.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { MARKER_OPEN } from '../../../src/security/wrap.js';
import { seriousViolations } from '../../support/axe.js';
import { LOOKS, lookName, openApp, openLook, shot, useWebGateway } from '../../support/browser-rig.js';
import { editedConversation } from '../../support/chat-helpers.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig } from '../../support/gateway-rig.js';
import { runGit } from '../../support/git-rig.js';
import { A_TXT, bareRemote, commitAll, projectRepo, write } from '../../support/review-rig.js';

const repo = projectRepo();
/** main as the tests start: each scene begins from it (the first merges into main). */
const start = runGit(repo, 'rev-parse', 'HEAD');
const rig = useWebGateway((mock) => ({
  agent: agentConfig(mock.url, tempDir('chome')),
  projects: { repo: { path: repo, worktrees: true } },
  // The person's own hooks run on the commits they make (off by default): a linter's hook refuses one here.
  review: { runHooks: true },
}));

/** A conversation whose agent edited a.txt and b.txt and added src/parser.ts in its worktree. */
const edited = () => editedConversation(rig, 'Uppercase gamma, add a parser');

const HOOK = path.join('.git', 'hooks', 'pre-commit');
/** A pre-commit hook that refuses every commit, as a project's linter would. */
function refuseCommits(on: boolean): void {
  const file = path.join(repo, HOOK);
  if (on) fs.writeFileSync(file, '#!/bin/sh\necho "lint: 2 problems in a.txt" >&2\nexit 1\n', { mode: 0o755 });
  else fs.rmSync(file, { force: true });
}

/** A change on main that conflicts with the agent's GAMMA; undone by the returned function. */
function conflictOnMain(): () => void {
  write(repo, 'a.txt', A_TXT.replace('gamma', 'gamma on main'));
  commitAll(repo, 'main edits gamma');
  return () => void runGit(repo, 'reset', '-q', '--hard', 'HEAD~1');
}

async function openChanges(page: Page): Promise<void> {
  await page.getByTestId('changes-toggle').click();
  await page.getByTestId('changes-summary').waitFor({ timeout: rig.budget });
}

const outcome = (page: Page, action: string) => page.locator(`[data-testid="review-outcome"][data-action="${action}"]`);
const isPrimary = (l: Locator) => l.evaluate((el) => el.classList.contains('primary'));
const file = (page: Page, p: string) => page.locator(`[data-testid="change-file"][data-path="${p}"]`);

async function noSerious(page: Page, what: string): Promise<void> {
  expect.soft([what, await seriousViolations(page)]).toEqual([what, []]);
}

async function merge(page: Page): Promise<void> {
  await page.getByTestId('merge').click();
  await page.getByTestId('merge-yes').click();
}

describe('landing the work (real browser, real CLI, real git)', () => {
  it('at 390×844: from three uncommitted files to merged and pushed, each step saying what it did', async () => {
    const { conv, wt } = await edited();
    // An untracked note with an empty line, for the diff's empty line.
    write(wt, 'notes.md', 'first\n\nlast\n');
    const app = await openApp(rig.browser, rig.gw.ep, { size: 'phone', conversation: conv });
    const { page } = app;
    await openChanges(page);

    // Nothing is committed yet, and the summary says so.
    expect.soft(await page.getByTestId('changes-counts').textContent()).toBe('4 files not committed · +5 −2');

    // A phone keeps the diff's width for code: one narrow column of line numbers.
    const a = file(page, 'a.txt');
    const numbers = (await a.locator('.dl .ln').first().boundingBox())!;
    const lines = (await a.getByTestId('diff-lines').boundingBox())!;
    expect.soft(numbers.width / lines.width).toBeLessThanOrEqual(0.12);

    // A diff is one Tab stop; its lines say what they are; an empty one has a name; each is 24 px high.
    expect.soft(await a.locator('[data-testid="diff-line"][tabindex="0"]').count()).toBe(1);
    const names = async (f: Locator, type: string) =>
      f.locator(`[data-testid="diff-line"][data-type="${type}"]`).evaluateAll((els) => els.map((e) => e.textContent));
    expect.soft((await names(a, 'add'))[0]).toMatch(/^Added line 3\b.*GAMMA/);
    expect.soft((await names(a, 'del'))[0]).toMatch(/^Removed line 3\b.*gamma/);
    const empty = file(page, 'notes.md').locator('[data-testid="diff-line"][data-new="2"]');
    expect.soft(((await empty.textContent()) ?? '').trim()).toMatch(/^Added line 2/);
    const heights = await page
      .getByTestId('diff-line')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
    expect.soft(Math.min(...heights)).toBeGreaterThanOrEqual(24);
    // The commit box is named for a screen reader.
    expect.soft(await page.getByRole('textbox', { name: /commit/i }).count()).toBe(1);
    fs.rmSync(path.join(wt, 'notes.md'));
    await page.getByTestId('changes-refresh').click();
    await file(page, 'notes.md').waitFor({ state: 'detached', timeout: rig.budget });

    // No remote yet: push says why instead of failing on a tap.
    expect.soft(await page.getByTestId('push').isDisabled()).toBe(true);
    expect
      .soft(
        await page
          .getByTestId('push-unavailable')
          .textContent({ timeout: 2000 })
          .catch(() => 'none'),
      )
      .toMatch(/remote/);

    // A hook refuses the commit: the message stays in the box.
    refuseCommits(true);
    const message = 'Uppercase gamma, drop two, add a parser';
    await page.getByTestId('commit-message').fill(message);
    await page.getByTestId('commit').click();
    await outcome(page, 'commit').waitFor({ timeout: rig.budget });
    expect(await outcome(page, 'commit').getAttribute('data-ok')).toBe('no');
    expect(await outcome(page, 'commit').textContent()).toContain('lint: 2 problems');
    expect.soft(await page.getByTestId('commit-message').inputValue()).toBe(message);
    await noSerious(page, 'failed commit');
    refuseCommits(false);
    await page.getByTestId('commit-message').fill(message);
    await page.getByTestId('commit').click();
    await expect.poll(() => outcome(page, 'commit').getAttribute('data-ok'), { timeout: rig.budget }).toBe('yes');
    await page.getByTestId('committed').waitFor({ timeout: rig.budget });
    expect.soft(await page.getByTestId('changes-counts').textContent()).toMatch(/^1 commit ahead of main/);

    // The phone's actions: the primary one across the width, the others side by side in one row.
    const primary = page.locator('#review-actions button.primary');
    expect.soft(await primary.count()).toBe(1);
    const view = (await page.getByTestId('review-actions').boundingBox())!;
    expect.soft((await primary.first().boundingBox())!.width).toBeGreaterThan(view.width * 0.8);
    const row = await page
      .locator('[data-testid="push"], [data-testid="push-base"], [data-testid="pull-request"]')
      .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
    expect.soft(new Set(row).size).toBe(1);

    // A merge asks first, naming the base and the commits; "Keep it" merges nothing.
    const mainHead = runGit(repo, 'rev-parse', 'HEAD');
    await page.getByTestId('merge').click();
    expect(await page.getByTestId('merge-confirm').textContent()).toMatch(/Merge 1 commit into main\?/);
    await page.getByTestId('merge-no').click();
    expect(runGit(repo, 'rev-parse', 'HEAD')).toBe(mainHead);

    // A conflict: the primary action is to ask the agent, and one tap sends it the files and main's change.
    const undo = conflictOnMain();
    await page.getByTestId('changes-refresh').click();
    await merge(page);
    await expect.poll(() => outcome(page, 'merge').getAttribute('data-ok'), { timeout: rig.budget }).toBe('no');
    const ask = page.getByTestId('ask-resolve');
    expect(await isPrimary(ask)).toBe(true);
    expect(await isPrimary(page.getByTestId('merge'))).toBe(false);
    await noSerious(page, 'conflict');
    await ask.click();
    await expect
      .poll(() => rig.mock.mainRequests().filter((r) => r.lastUserText.includes('gamma on main')).length, {
        timeout: rig.budget,
      })
      .toBe(1);
    const sent = rig.mock.mainRequests().find((r) => r.lastUserText.includes('gamma on main'))!.lastUserText;
    expect(sent).toContain(`<<<${MARKER_OPEN} `);
    expect(sent).toContain('a.txt');
    expect(sent).toMatch(/\+gamma on main/);
    await page.getByTestId('changes-back').click();
    await page.getByTestId('user-message').filter({ hasText: 'a.txt' }).last().waitFor({ timeout: rig.budget });
    await page.getByTestId('changes-toggle').click();
    undo();

    // Merged: one outcome by its action; the view says it was merged and nothing is new.
    await page.getByTestId('changes-refresh').click();
    await expect.poll(() => isPrimary(page.getByTestId('merge')), { timeout: rig.budget }).toBe(true);
    await merge(page);
    await expect.poll(() => outcome(page, 'merge').getAttribute('data-ok'), { timeout: rig.budget }).toBe('yes');
    expect(await page.getByTestId('review-outcome').count()).toBe(1);
    await expect
      .poll(() => page.getByTestId('no-changes').textContent(), { timeout: rig.budget })
      .toMatch(/Merged into main.*nothing new/i);

    // A remote: push names it, not its path on disk.
    const bare = bareRemote(repo);
    await page.getByTestId('changes-refresh').click();
    await expect.poll(() => page.getByTestId('push').isEnabled(), { timeout: rig.budget }).toBe(true);
    await page.getByTestId('push').click();
    await expect.poll(() => outcome(page, 'push').getAttribute('data-ok'), { timeout: rig.budget }).toBe('yes');
    expect(await outcome(page, 'push').textContent()).toContain('origin');
    expect(await outcome(page, 'push').textContent()).not.toContain(bare);
    expect(await page.getByTestId('review-outcome').count()).toBe(1);

    // New changes: the old outcome goes.
    write(wt, 'later.txt', 'more\n');
    await page.getByTestId('changes-refresh').click();
    await file(page, 'later.txt').waitFor({ timeout: rig.budget });
    expect(await page.getByTestId('review-outcome').count()).toBe(0);
    fs.rmSync(path.join(wt, 'later.txt'));
    runGit(repo, 'remote', 'remove', 'origin');
    runGit(repo, 'reset', '-q', '--hard', start);
    expect(app.problems).toEqual([]);
    await app.close();
  }, 240_000);

  for (const look of LOOKS)
    it(`${lookName(look)}: the actions, a failed commit and a conflict`, async () => {
      const { conv } = await edited();
      const app = await openLook(rig.browser, rig.gw.ep, look, conv);
      const { page } = app;
      const name = (scene: string) => `landing-${scene}-${lookName(look)}`;
      await openChanges(page);
      await page.getByTestId('review-actions').scrollIntoViewIfNeeded();
      await noSerious(page, 'actions');
      await shot(page, name('actions'));

      refuseCommits(true);
      await page.getByTestId('commit-message').fill('Uppercase gamma, add a parser');
      await page.getByTestId('commit').click();
      await outcome(page, 'commit').waitFor({ timeout: rig.budget });
      await outcome(page, 'commit').scrollIntoViewIfNeeded();
      await shot(page, name('failed-commit'));
      refuseCommits(false);
      await page.getByTestId('commit').click();
      await expect.poll(() => outcome(page, 'commit').getAttribute('data-ok'), { timeout: rig.budget }).toBe('yes');

      const undo = conflictOnMain();
      await page.getByTestId('changes-refresh').click();
      await page.getByTestId('merge').click();
      await page.getByTestId('merge-confirm').scrollIntoViewIfNeeded();
      await shot(page, name('merge-confirm'));
      await page.getByTestId('merge-yes').click();
      await expect.poll(() => outcome(page, 'merge').getAttribute('data-ok'), { timeout: rig.budget }).toBe('no');
      await outcome(page, 'merge').scrollIntoViewIfNeeded();
      await noSerious(page, 'conflict');
      await shot(page, name('conflict'));
      // Only the view scrolls: the page itself (its header) never moves out of sight.
      expect(await page.evaluate<number>('document.documentElement.scrollHeight - innerHeight')).toBeLessThanOrEqual(0);
      undo();
      expect(app.problems).toEqual([]);
      await app.close();
    }, 180_000);
});
