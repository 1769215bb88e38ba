/** Discarding a worktree's uncommitted changes: the list (ignored files too), the token, a stale one refused. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discard, discardPreview } from '../../../../src/projects/changes/discard.js';
import { runGit } from '../../../support/git-rig.js';
import {
  commitAll,
  failure,
  projectRepo,
  read,
  runner,
  statusLines,
  worktree,
  write,
} from '../../../support/review-rig.js';

const run = runner();

describe('discard', () => {
  it('lists every uncommitted file, ignored ones too, and removes them only with the current token', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'kept.txt', 'committed work\n');
    const head = commitAll(wt.path, 'work to keep');
    write(wt.path, 'a.txt', 'edited\n');
    write(wt.path, 'staged.txt', 'staged\n');
    runGit(wt.path, 'add', 'staged.txt');
    runGit(wt.path, 'rm', '-q', 'b.txt');
    write(wt.path, 'notes/todo.md', 'untracked\n');
    write(wt.path, '.env', 'API_KEY=secret\n');
    write(wt.path, 'dist/bundle.js', 'built\n');
    const p = await discardPreview(run, wt.path);
    expect(p.worktree).toBe(wt.path);
    expect(p.files).toEqual([
      { path: 'a.txt', state: 'modified', directory: false },
      { path: 'b.txt', state: 'deleted', directory: false },
      { path: 'staged.txt', state: 'added', directory: false },
      { path: 'notes/todo.md', state: 'untracked', directory: false },
      { path: '.env', state: 'ignored', directory: false },
      { path: 'dist/', state: 'ignored', directory: true },
    ]);
    expect(p.token).toMatch(/^[0-9a-f]{16}$/);
    // Asking again with nothing changed gives the same token.
    expect((await discardPreview(run, wt.path)).token).toBe(p.token);

    const wrong = await failure(discard(run, wt.path, { confirm: 'not-the-token' }));
    expect(wrong.code).toBe('REVIEW_CONFIRM_STALE');
    expect(statusLines(wt.path)).toHaveLength(6);

    const r = await discard(run, wt.path, { confirm: p.token });
    expect(r.removed).toEqual(p.files);
    expect(r.remaining).toEqual([]);
    expect(statusLines(wt.path)).toEqual([]);
    expect(fs.existsSync(path.join(wt.path, '.env'))).toBe(false);
    expect(fs.existsSync(path.join(wt.path, 'dist'))).toBe(false);
    expect(read(wt.path, 'b.txt')).toBe('one\ntwo\nthree\n');
    // Commits stay: only what was not committed goes.
    expect(runGit(wt.path, 'rev-parse', 'HEAD')).toBe(head);
    expect(read(wt.path, 'kept.txt')).toBe('committed work\n');
    // The same confirmation again is stale (the list is empty now): a button works once.
    expect((await failure(discard(run, wt.path, { confirm: p.token }))).code).toBe('REVIEW_CONFIRM_STALE');
  });

  it('refuses a confirmation given for a list that changed since, and removes nothing', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'a.txt', 'edited\n');
    const p = await discardPreview(run, wt.path);
    write(wt.path, '.env.local', 'LATE=1\n');
    fs.appendFileSync(path.join(wt.path, '.gitignore'), '.env.local\n');
    const f = await failure(discard(run, wt.path, { confirm: p.token }));
    expect(f.code).toBe('REVIEW_CONFIRM_STALE');
    expect(f.message).toContain('3 file(s) are uncommitted now');
    const now = await discardPreview(run, wt.path);
    expect((f.context as { token: string }).token).toBe(now.token);
    expect(read(wt.path, 'a.txt')).toBe('edited\n');
    expect(read(wt.path, '.env.local')).toBe('LATE=1\n');
    // A commit in between changes it too, even with the same files listed.
    const before = await discardPreview(run, wt.path);
    write(wt.path, 'c.txt', 'c\n');
    runGit(wt.path, 'add', 'c.txt');
    runGit(wt.path, 'commit', '-qm', 'c');
    expect((await discardPreview(run, wt.path)).files).toEqual(before.files);
    expect((await failure(discard(run, wt.path, { confirm: before.token }))).code).toBe('REVIEW_CONFIRM_STALE');
  });

  it("never runs in a project's own checkout; a nested repository is kept and reported", async () => {
    const repo = projectRepo();
    write(repo, 'a.txt', 'my own edit\n');
    const f = await failure(discardPreview(run, repo));
    expect(f.code).toBe('REVIEW_NOT_A_WORKTREE');
    expect(read(repo, 'a.txt')).toBe('my own edit\n');
    const wt = worktree(repo);
    const nested = path.join(wt.path, 'vendor', 'lib');
    fs.mkdirSync(nested, { recursive: true });
    runGit(nested, 'init', '-q');
    write(wt.path, 'x.txt', 'x\n');
    const p = await discardPreview(run, wt.path);
    const r = await discard(run, wt.path, { confirm: p.token });
    expect(r.removed.map((e) => e.path)).toEqual(['x.txt']);
    expect(r.remaining).toEqual([{ path: 'vendor/lib/', state: 'untracked', directory: true }]);
    expect(fs.existsSync(path.join(nested, '.git'))).toBe(true);
  });
});
