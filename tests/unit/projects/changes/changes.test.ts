/** A worktree's changes on real repositories: statuses, counts, diffs, sections, bounds. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { changes, fileDiff, workingChanges } from '../../../../src/projects/changes/changes.js';
import type { ChangeSet, FileChange, Section } from '../../../../src/projects/changes/types.js';
import { runGit } from '../../../support/git-rig.js';
import { A_TXT, commitAll, failure, projectRepo, read, runner, worktree, write } from '../../../support/review-rig.js';

const run = runner();

const files = (set: ChangeSet, s: Section) => set.sections[s].files;
const byPath = (set: ChangeSet, s: Section, p: string): FileChange => {
  const f = files(set, s).find((x) => x.path === p);
  if (!f) throw new Error(`${p} is not in ${s}: ${files(set, s).map((x) => x.path)}`);
  return f;
};

describe('changes', () => {
  it('shows two edited files and a new one with their statuses, counts and diffs, uncommitted apart', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'a.txt', A_TXT.replace('gamma', 'GAMMA').replace('theta\n', 'theta\niota\n'));
    write(wt.path, 'b.txt', 'one\nthree\n');
    write(wt.path, 'src/new.ts', 'export const x = 1;\nexport const y = 2;\n');
    const set = await changes(run, wt.path, 'main');
    expect(set).toMatchObject({ worktree: wt.path, branch: wt.branch, base: { name: 'main', ahead: 0, behind: 0 } });
    expect(files(set, 'committed')).toEqual([]);
    expect(files(set, 'staged')).toEqual([]);
    expect(files(set, 'unstaged').map((f) => [f.path, f.status, f.added, f.deleted])).toEqual([
      ['a.txt', 'modified', 2, 1],
      ['b.txt', 'modified', 0, 1],
    ]);
    const a = byPath(set, 'unstaged', 'a.txt');
    expect(a.diff).toContain('diff --git a/a.txt b/a.txt\n');
    expect(a.diff).toMatch(/^-gamma\n\+GAMMA$/m);
    expect(a.diff).toMatch(/^ theta\n\+iota$/m);
    expect(byPath(set, 'unstaged', 'b.txt').diff).toMatch(/@@ -1,3 \+1,2 @@\n one\n-two\n three\n$/);
    const n = byPath(set, 'untracked', 'src/new.ts');
    expect(n).toMatchObject({ status: 'added', binary: false, added: 2, deleted: 0 });
    expect(n.diff).toBe(
      'diff --git a/src/new.ts b/src/new.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/new.ts\n' +
        '@@ -0,0 +1,2 @@\n+export const x = 1;\n+export const y = 2;\n',
    );
    expect(set.totals).toEqual({ files: 3, added: 4, deleted: 2 });

    // Staged apart from unstaged; committed against the merge base.
    runGit(wt.path, 'add', 'b.txt');
    commitAll(wt.path, 'the edits');
    write(wt.path, 'b.txt', 'one\nthree\nfour\n');
    runGit(wt.path, 'add', 'b.txt');
    write(wt.path, 'a.txt', 'short\n');
    const later = await changes(run, wt.path, 'main');
    expect(later.base).toMatchObject({ ahead: 1, behind: 0 });
    expect(files(later, 'committed').map((f) => [f.path, f.status, f.added, f.deleted])).toEqual([
      ['a.txt', 'modified', 2, 1],
      ['b.txt', 'modified', 0, 1],
      ['src/new.ts', 'added', 2, 0],
    ]);
    expect(files(later, 'staged').map((f) => [f.path, f.added, f.deleted])).toEqual([['b.txt', 1, 0]]);
    expect(files(later, 'unstaged').map((f) => [f.path, f.added, f.deleted])).toEqual([['a.txt', 1, 9]]);
    expect(files(later, 'untracked')).toEqual([]);
  });

  it('shows a rename with its old path, a binary file, a deletion and a mode change', async () => {
    const repo = projectRepo();
    write(repo, 'logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    write(repo, 'run.sh', 'echo hi\n');
    commitAll(repo, 'assets');
    const wt = worktree(repo);
    fs.mkdirSync(path.join(wt.path, 'docs'));
    runGit(wt.path, 'mv', 'a.txt', 'docs/alphabet.txt');
    write(wt.path, 'logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 9, 9, 9, 9]));
    runGit(wt.path, 'rm', '-q', 'b.txt');
    fs.chmodSync(path.join(wt.path, 'run.sh'), 0o755);
    commitAll(wt.path, 'move things');
    write(wt.path, 'new.bin', Buffer.from([1, 0, 2, 0]));
    // A file that becomes a symlink: git writes two chunks for it, which stay one file here.
    fs.rmSync(path.join(wt.path, 'README.md'));
    fs.symlinkSync('docs/alphabet.txt', path.join(wt.path, 'README.md'));
    const set = await changes(run, wt.path, 'main');
    const link = byPath(set, 'unstaged', 'README.md');
    expect(link).toMatchObject({ status: 'modified', oldMode: '100644', newMode: '120000', added: 1, deleted: 1 });
    expect(link.diff!.match(/^diff --git /gm)).toHaveLength(2);
    expect(link.diff).toContain('+docs/alphabet.txt\n\\ No newline at end of file');
    const c = files(set, 'committed');
    expect(c.map((f) => [f.path, f.status])).toEqual([
      ['b.txt', 'deleted'],
      ['docs/alphabet.txt', 'renamed'],
      ['logo.png', 'modified'],
      ['run.sh', 'modified'],
    ]);
    expect(byPath(set, 'committed', 'docs/alphabet.txt')).toMatchObject({
      oldPath: 'a.txt',
      similarity: 100,
      added: 0,
      deleted: 0,
    });
    expect(byPath(set, 'committed', 'docs/alphabet.txt').diff).toContain(
      'rename from a.txt\nrename to docs/alphabet.txt',
    );
    expect(byPath(set, 'committed', 'logo.png')).toMatchObject({ binary: true, added: null, deleted: null });
    expect(byPath(set, 'committed', 'logo.png').diff).toContain('Binary files a/logo.png and b/logo.png differ');
    expect(byPath(set, 'committed', 'b.txt')).toMatchObject({ added: 0, deleted: 3 });
    expect(byPath(set, 'committed', 'run.sh')).toMatchObject({ oldMode: '100644', newMode: '100755', added: 0 });
    expect(byPath(set, 'untracked', 'new.bin')).toMatchObject({ status: 'added', binary: true, added: null });
    expect(byPath(set, 'untracked', 'new.bin').diff).toContain('Binary files /dev/null and b/new.bin differ');
  });

  it('names paths with spaces, quotes and non-ASCII letters as they are', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    const names = ['with space.txt', 'quote"d.txt', 'naïve café.md', 'tab\there.txt'];
    for (const n of names) write(wt.path, n, `${n}\n`);
    commitAll(wt.path, 'odd names');
    for (const n of names) write(wt.path, n, `${n}\nmore\n`);
    const set = await changes(run, wt.path, 'main');
    expect(
      files(set, 'committed')
        .map((f) => f.path)
        .sort(),
    ).toEqual([...names].sort());
    for (const n of names) {
      expect(byPath(set, 'committed', n)).toMatchObject({ status: 'added', added: 1 });
      expect(byPath(set, 'unstaged', n).diff).toContain(`+more`);
    }
  });

  it('collapses a long diff and a large new file with their counts, and fetches each whole on demand', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    const big = Array.from({ length: 300 }, (_, i) => `line ${i}`).join('\n') + '\n';
    write(wt.path, 'big.txt', big);
    write(wt.path, 'wide.txt', 'x'.repeat(5000) + '\n');
    commitAll(wt.path, 'big ones');
    write(wt.path, 'a.txt', A_TXT.replace('alpha', 'ALPHA'));
    write(wt.path, 'huge-new.txt', big);
    const limits = { maxFileLines: 100, maxFileBytes: 4000 };
    const set = await changes(run, wt.path, 'main', { limits });
    expect(byPath(set, 'committed', 'big.txt')).toMatchObject({
      added: 300,
      collapsed: { reason: 'lines', lines: 300 },
    });
    expect(byPath(set, 'committed', 'big.txt').diff).toBeUndefined();
    expect(byPath(set, 'committed', 'wide.txt').collapsed).toMatchObject({ reason: 'bytes', lines: 1 });
    expect(byPath(set, 'committed', 'wide.txt').collapsed!.bytes).toBeGreaterThan(5000);
    expect(byPath(set, 'unstaged', 'a.txt').diff).toContain('+ALPHA');
    expect(byPath(set, 'untracked', 'huge-new.txt')).toMatchObject({ added: 300, collapsed: { reason: 'lines' } });

    const whole = await fileDiff(run, wt.path, { section: 'committed', path: 'big.txt' }, 'main');
    expect(whole).toMatchObject({ truncated: false });
    expect(whole.diff.split('\n').filter((l) => l.startsWith('+line '))).toHaveLength(300);
    const fresh = await fileDiff(run, wt.path, { section: 'untracked', path: 'huge-new.txt' });
    expect(fresh.diff).toContain('@@ -0,0 +1,300 @@');
    // The on-demand bound cuts and says so.
    const cutOff = await fileDiff(run, wt.path, { section: 'committed', path: 'big.txt' }, 'main', {
      limits: { maxFullDiffBytes: 1000 },
    });
    expect(cutOff.truncated).toBe(true);
    expect(cutOff.bytes).toBeLessThanOrEqual(1000);
    const cutNew = await fileDiff(run, wt.path, { section: 'untracked', path: 'huge-new.txt' }, undefined, {
      limits: { maxFullDiffBytes: 2000 },
    });
    expect(cutNew).toMatchObject({ truncated: true });
    expect(cutNew.bytes).toBeLessThanOrEqual(2000);
  });

  it('spends one byte budget over the whole set: files past it are collapsed as such', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    for (let i = 0; i < 6; i++) write(wt.path, `f${i}.txt`, `${'word '.repeat(40)}${i}\n`.repeat(5));
    commitAll(wt.path, 'six files');
    const set = await changes(run, wt.path, 'main', { limits: { maxTotalBytes: 2500 } });
    const c = files(set, 'committed');
    const inline = c.filter((f) => f.diff !== undefined);
    expect(inline.length).toBeGreaterThan(0);
    expect(inline.length).toBeLessThan(6);
    expect(c.filter((f) => f.collapsed?.reason === 'budget')).toHaveLength(6 - inline.length);
    expect(inline.reduce((n, f) => n + Buffer.byteLength(f.diff!), 0)).toBeLessThanOrEqual(2500);
    // Listing bound: files beyond it are counted.
    const few = await changes(run, wt.path, 'main', { limits: { maxFiles: 2 } });
    expect(few.sections.committed).toMatchObject({ omitted: 4 });
    expect(few.sections.committed.files).toHaveLength(2);
  });

  it('never shows or reads an ignored file, or a path outside the worktree', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, '.env', 'API_KEY=secret\n');
    write(wt.path, 'dist/bundle.js', 'x\n');
    const set = await changes(run, wt.path, 'main');
    expect(Object.values(set.sections).flatMap((s) => s.files)).toEqual([]);
    expect((await failure(fileDiff(run, wt.path, { section: 'untracked', path: '.env' }))).code).toBe(
      'REVIEW_FILE_UNKNOWN',
    );
    expect((await failure(fileDiff(run, wt.path, { section: 'untracked', path: '../../../../etc/passwd' }))).code).toBe(
      'REVIEW_FILE_UNKNOWN',
    );
    expect((await failure(fileDiff(run, wt.path, { section: 'unstaged', path: '../outside.txt' }))).code).toBe(
      'REVIEW_FILE_UNKNOWN',
    );
    expect((await failure(fileDiff(run, wt.path, { section: 'unstaged', path: 'a.txt' }))).code).toBe(
      'REVIEW_FILE_UNKNOWN',
    );
  });

  it('compares with the base: ahead and behind, and only what the branch did since the merge base', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'mine.txt', 'mine\n');
    commitAll(wt.path, 'mine');
    write(repo, 'theirs.txt', 'theirs\n');
    commitAll(repo, 'theirs');
    write(repo, 'theirs2.txt', 'theirs\n');
    commitAll(repo, 'theirs 2');
    const set = await changes(run, wt.path, 'main');
    expect(set.base).toMatchObject({ ahead: 1, behind: 2 });
    expect(files(set, 'committed').map((f) => f.path)).toEqual(['mine.txt']);
    expect((await failure(changes(run, wt.path, 'no-such-branch'))).code).toBe('REVIEW_BASE_UNKNOWN');
    expect((await failure(changes(run, wt.path, '--output=/tmp/x'))).code).toBe('REVIEW_BASE_UNKNOWN');
  });

  it('read-only, for a project without worktrees: the working tree against HEAD, no base', async () => {
    const repo = projectRepo();
    write(repo, 'a.txt', `${A_TXT}kappa\n`);
    write(repo, 'notes.md', '# notes\n');
    runGit(repo, 'add', 'notes.md');
    const set = await workingChanges(run, repo);
    expect(set.base).toBeUndefined();
    expect(set.branch).toBe('main');
    expect(files(set, 'committed')).toEqual([]);
    expect(files(set, 'staged').map((f) => [f.path, f.status, f.added])).toEqual([['notes.md', 'added', 1]]);
    expect(files(set, 'unstaged').map((f) => [f.path, f.added])).toEqual([['a.txt', 1]]);
    expect(read(repo, 'a.txt')).toContain('kappa'); // read-only: the tree is as it was
    expect((await failure(workingChanges(run, path.dirname(repo)))).code).toBe('NOT_A_GIT_REPO');
  });
});
