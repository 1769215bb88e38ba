/** Merge on real repositories: what lands on the base, fast-forward or merge commit, conflicts undone. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commit } from '../../../../src/projects/changes/commit.js';
import { merge } from '../../../../src/projects/changes/merge.js';
import { runGit } from '../../../support/git-rig.js';
import {
  A_TXT,
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

describe('merge', () => {
  it('commit then merge fast-forwards the base; the base log shows the commit and its files are there', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'a.txt', A_TXT.replace('alpha', 'ALPHA'));
    const c = await commit(run, wt.path, 'Uppercase alpha');
    const before = runGit(repo, 'rev-parse', 'HEAD');
    const m = await merge(run, wt.path, 'main');
    expect(m).toEqual({ kind: 'fast-forward', branch: wt.branch, base: 'main', from: before, to: c.sha, commits: 1 });
    expect(runGit(repo, 'log', '--format=%s', '-2').split('\n')).toEqual(['Uppercase alpha', 'files']);
    expect(read(repo, 'a.txt')).toContain('ALPHA');
    expect(statusLines(repo)).toEqual([]);
    expect(await merge(run, wt.path, 'main')).toMatchObject({ kind: 'up-to-date', head: c.sha });
  });

  it('makes a merge commit when the base has moved on', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'a.txt', A_TXT.replace('alpha', 'ALPHA'));
    const c = await commit(run, wt.path, 'agent work');
    write(repo, 'b.txt', 'one\ntwo\nthree\nfour\n');
    const moved = commitAll(repo, 'meanwhile on main');
    const m = await merge(run, wt.path, 'main');
    expect(m).toMatchObject({ kind: 'merge-commit', branch: wt.branch, base: 'main', from: moved, commits: 1 });
    if (m.kind !== 'merge-commit') throw new Error('unreachable');
    expect(runGit(repo, 'rev-parse', 'HEAD')).toBe(m.to);
    expect(runGit(repo, 'log', '-1', '--format=%P').split(' ')).toEqual([moved, c.sha]);
    expect(runGit(repo, 'log', '-1', '--format=%s')).toBe(`Merge branch '${wt.branch}'`);
    expect(read(repo, 'a.txt')).toContain('ALPHA');
    expect(read(repo, 'b.txt')).toContain('four');
    expect(statusLines(repo)).toEqual([]);
  });

  it('stops at a conflict with the file named; both trees are left exactly as they were', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'a.txt', A_TXT.replace('gamma', 'gamma from the agent'));
    write(wt.path, 'b.txt', 'one\ntwo\nthree\nagent\n');
    const mine = (await commit(run, wt.path, 'agent edits')).sha;
    write(repo, 'a.txt', A_TXT.replace('gamma', 'gamma from the person'));
    const base = commitAll(repo, 'person edits');
    write(repo, 'scratch.txt', 'an untracked note of mine\n');
    const m = await merge(run, wt.path, 'main');
    expect(m).toEqual({ kind: 'conflict', branch: wt.branch, base: 'main', files: ['a.txt'], clean: true });
    expect(runGit(repo, 'rev-parse', 'HEAD')).toBe(base);
    expect(statusLines(repo)).toEqual(['?? scratch.txt']);
    expect(read(repo, 'a.txt')).toContain('gamma from the person');
    expect(read(repo, 'a.txt')).not.toContain('<<<<<<<');
    expect(fs.existsSync(path.join(repo, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(runGit(wt.path, 'rev-parse', 'HEAD')).toBe(mine);
    expect(statusLines(wt.path)).toEqual([]);
  });

  it('refuses while the worktree or the base checkout has uncommitted changes, saying which and what', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'a.txt', 'agent\n');
    await commit(run, wt.path, 'agent');
    write(wt.path, 'draft.txt', 'not yet\n');
    const w = await failure(merge(run, wt.path, 'main'));
    expect(w.code).toBe('REVIEW_WORKTREE_DIRTY');
    expect(w.message).toContain(`The worktree ${wt.path} has uncommitted changes: draft.txt.`);
    expect(w.context).toMatchObject({ tree: 'worktree', files: ['draft.txt'] });
    runGit(wt.path, 'clean', '-fq');
    write(repo, 'b.txt', 'edited by hand\n');
    const b = await failure(merge(run, wt.path, 'main'));
    expect(b.code).toBe('REVIEW_BASE_DIRTY');
    expect(b.message).toContain(`${repo} (where main is checked out) has uncommitted changes: b.txt.`);
    expect(runGit(repo, 'log', '--format=%s', '-1')).toBe('files');
    expect(read(repo, 'b.txt')).toBe('edited by hand\n');
  });

  it('refuses an untracked file in the base checkout that the merge would overwrite, touching nothing', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'c.txt', 'from the agent\n');
    await commit(run, wt.path, 'add c');
    write(repo, 'b.txt', 'one\ntwo\nthree\nfour\n');
    const head = commitAll(repo, 'main moves on');
    write(repo, 'c.txt', 'mine, untracked\n');
    const f = await failure(merge(run, wt.path, 'main'));
    expect(f.code).toBe('REVIEW_MERGE_FAILED');
    expect(f.message).toMatch(/untracked working tree files would be overwritten/);
    expect(runGit(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(read(repo, 'c.txt')).toBe('mine, untracked\n');
    expect(statusLines(repo)).toEqual(['?? c.txt']);
  });

  it('fast-forwards a base nobody has checked out by moving its ref; refuses the branch as its base', async () => {
    const repo = projectRepo();
    runGit(repo, 'branch', 'release');
    const wt = worktree(repo);
    write(wt.path, 'a.txt', 'agent\n');
    const c = await commit(run, wt.path, 'agent');
    expect(await merge(run, wt.path, 'release')).toMatchObject({ kind: 'fast-forward', to: c.sha });
    expect(runGit(repo, 'rev-parse', 'release')).toBe(c.sha);
    expect(runGit(repo, 'rev-parse', 'main')).not.toBe(c.sha);
    expect((await failure(merge(run, wt.path, wt.branch))).code).toBe('REVIEW_BASE_UNKNOWN');
    expect((await failure(merge(run, wt.path, 'nope'))).message).toContain('There is no branch nope');
  });
});
