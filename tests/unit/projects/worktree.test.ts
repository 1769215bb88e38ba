/** The worktree manager against real git repositories in temp dirs. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRudderError } from '../../../src/errors.js';
import type { Project } from '../../../src/projects/projects.js';
import { branchFor, ensureWorktree, removeWorktree, worktreeStatus } from '../../../src/projects/worktree.js';
import { tempDir } from '../../support/claude-rig.js';
import { gitRepo, runGit } from '../../support/git-rig.js';

const project = (p: string, dir?: string): Project => ({ name: 'api', path: p, implicit: false, worktrees: { dir } });

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isRudderError(err)) return `${err.code}: ${err.message}`;
    throw err;
  }
  return 'no error';
}

describe('worktrees', () => {
  it('gives two conversations two worktrees on two branches from HEAD; an edit in one is not in the other', () => {
    const repo = gitRepo();
    const head = runGit(repo, 'rev-parse', 'HEAD');
    const a = ensureWorktree(project(repo), 'web:c-a');
    const b = ensureWorktree(project(repo), 'web:c-b');
    expect(a.path).toBe(path.join(`${repo}.rudder-worktrees`, 'web-c-a-' + a.path.split('-').at(-1)));
    expect(a.path).not.toBe(b.path);
    expect([a.branch, b.branch]).toEqual(['rudder/web/c-a', 'rudder/web/c-b']);
    expect(runGit(a.path, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('rudder/web/c-a');
    expect(runGit(b.path, 'rev-parse', 'HEAD')).toBe(head);
    fs.writeFileSync(path.join(a.path, 'only-a.txt'), 'a');
    expect(fs.existsSync(path.join(b.path, 'only-a.txt'))).toBe(false);
    expect(fs.existsSync(path.join(repo, 'only-a.txt'))).toBe(false);
    expect(
      runGit(repo, 'branch', '--list', 'rudder/*')
        .split('\n')
        .map((l) => l.trim()),
    ).toEqual(['+ rudder/web/c-a', '+ rudder/web/c-b']);
    // Asking again reuses it, edits and all.
    expect(ensureWorktree(project(repo), 'web:c-a', { worktree: a.path, branch: a.branch })).toEqual(a);
    expect(fs.existsSync(path.join(a.path, 'only-a.txt'))).toBe(true);
  });

  it('puts worktrees in worktrees.dir, and works in the same subdirectory when the project is one', () => {
    const repo = gitRepo();
    fs.mkdirSync(path.join(repo, 'pkg', 'api'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'pkg', 'api', 'x.ts'), '1');
    runGit(repo, 'add', '.');
    runGit(repo, 'commit', '-qm', 'pkg');
    const dir = tempDir('wtdir');
    const wt = ensureWorktree(project(path.join(repo, 'pkg', 'api'), dir), 'telegram:-100:7');
    expect(path.dirname(wt.path)).toBe(dir);
    expect(wt.cwd).toBe(path.join(wt.path, 'pkg', 'api'));
    expect(fs.readFileSync(path.join(wt.cwd, 'x.ts'), 'utf8')).toBe('1');
  });

  it('makes branch names git accepts from any conversation id, different for different ids', () => {
    const ids = [
      'telegram:-100123:45',
      'whatsapp:4915123@s.whatsapp.net',
      'slack:C01:1700000000.0001',
      'web:..lock',
      'discord:1234',
      'web:a b',
      'web:a-b',
    ];
    const branches = ids.map(branchFor);
    for (const b of branches) execFileSync('git', ['check-ref-format', '--branch', b]);
    expect(new Set(branches).size).toBe(ids.length);
    expect(branchFor('web:c-1a2b')).toBe('rudder/web/c-1a2b');
  });

  it('says clearly when the project is not a git repository, or has no commit to branch from', () => {
    expect(code(() => ensureWorktree(project(tempDir('plain')), 'web:x'))).toMatch(
      /^NOT_A_GIT_REPO: .*is not one\. Run git init there/,
    );
    expect(code(() => ensureWorktree(project(gitRepo({ empty: true })), 'web:x'))).toMatch(
      /^WORKTREE_FAILED: .*has no commits yet/,
    );
    const repo = gitRepo();
    const taken = path.join(`${repo}.rudder-worktrees`, 'web-x-' + 'zzz');
    fs.mkdirSync(taken, { recursive: true });
    fs.writeFileSync(path.join(taken, 'mine.txt'), 'keep');
    expect(code(() => ensureWorktree(project(repo), 'web:x', { worktree: taken, branch: null }))).toMatch(
      /^WORKTREE_FAILED: .*exists and is not a worktree/,
    );
    expect(fs.readFileSync(path.join(taken, 'mine.txt'), 'utf8')).toBe('keep');
  });

  it('reports branch, ahead/behind and changed files', async () => {
    const repo = gitRepo();
    const p = project(repo);
    const wt = ensureWorktree(p, 'web:st');
    fs.writeFileSync(path.join(wt.path, 'a.txt'), 'a');
    runGit(wt.path, 'add', 'a.txt');
    runGit(wt.path, 'commit', '-qm', 'a');
    fs.writeFileSync(path.join(wt.path, 'b.txt'), 'b');
    fs.writeFileSync(path.join(wt.path, 'README.md'), 'changed');
    fs.writeFileSync(path.join(repo, 'main.txt'), 'm');
    runGit(repo, 'add', 'main.txt');
    runGit(repo, 'commit', '-qm', 'main moves on');
    const s = await worktreeStatus(p, wt.path);
    expect(s).toMatchObject({ path: wt.path, branch: 'rudder/web/st', base: 'main', ahead: 1, behind: 1 });
    expect(s.changes.sort()).toEqual([' M README.md', '?? b.txt']);
  });

  it('removes a worktree only without uncommitted changes unless forced; the branch and its commits stay', async () => {
    const repo = gitRepo();
    const p = project(repo);
    const wt = ensureWorktree(p, 'web:rm');
    fs.writeFileSync(path.join(wt.path, 'done.txt'), 'committed');
    runGit(wt.path, 'add', '.');
    runGit(wt.path, 'commit', '-qm', 'work');
    fs.writeFileSync(path.join(wt.path, 'draft.txt'), 'not committed');
    expect(await removeWorktree(p, wt.path, false)).toEqual({ removed: false, changes: ['?? draft.txt'], ignored: [] });
    expect(fs.existsSync(path.join(wt.path, 'draft.txt'))).toBe(true);
    expect(await removeWorktree(p, wt.path, true)).toEqual({ removed: true });
    expect(fs.existsSync(wt.path)).toBe(false);
    expect(runGit(repo, 'worktree', 'list')).not.toContain(wt.path);
    expect(runGit(repo, 'branch', '--list', wt.branch)).toContain(wt.branch);
    // Made again: the kept branch is checked out, with the committed work.
    const again = ensureWorktree(p, 'web:rm', { worktree: null, branch: wt.branch });
    expect(fs.readFileSync(path.join(again.path, 'done.txt'), 'utf8')).toBe('committed');
    expect(fs.existsSync(path.join(again.path, 'draft.txt'))).toBe(false);
  });

  it('refuses to remove a worktree that holds ignored files (a .env), listing them, unless forced', async () => {
    const repo = gitRepo();
    fs.writeFileSync(path.join(repo, '.gitignore'), '.env\nnode_modules/\n');
    runGit(repo, 'add', '.gitignore');
    runGit(repo, 'commit', '-qm', 'ignore secrets');
    const p = project(repo);
    const wt = ensureWorktree(p, 'web:env');
    fs.writeFileSync(path.join(wt.path, '.env'), 'API_KEY=only-copy');
    fs.mkdirSync(path.join(wt.path, 'node_modules', 'x'), { recursive: true });
    fs.writeFileSync(path.join(wt.path, 'node_modules', 'x', 'index.js'), '');
    // git itself sees nothing to lose: this is what `git worktree remove` would delete without asking.
    expect(runGit(wt.path, 'status', '--porcelain')).toBe('');
    expect((await worktreeStatus(p, wt.path)).ignored.sort()).toEqual(['.env', 'node_modules/']);
    expect(await removeWorktree(p, wt.path, false)).toEqual({
      removed: false,
      changes: [],
      ignored: expect.arrayContaining(['.env', 'node_modules/']),
    });
    expect(fs.readFileSync(path.join(wt.path, '.env'), 'utf8')).toBe('API_KEY=only-copy');
    expect(await removeWorktree(p, wt.path, true)).toEqual({ removed: true });
    expect(fs.existsSync(wt.path)).toBe(false);
  });
});
