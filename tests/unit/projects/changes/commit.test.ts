/** Commit on real repositories: the worktree as written, refusals that say what to do, the index put back. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commit } from '../../../../src/projects/changes/commit.js';
import { runGit } from '../../../support/git-rig.js';
import { A_TXT, failure, projectRepo, runner, statusLines, worktree, write } from '../../../support/review-rig.js';

const run = runner();

describe('commit', () => {
  it('commits everything in the worktree with the message as written; ignored files stay out', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'a.txt', A_TXT.replace('beta', 'BETA'));
    write(wt.path, 'new/file.ts', 'export {};\n');
    runGit(wt.path, 'rm', '-q', 'b.txt');
    write(wt.path, '.env', 'TOKEN=x\n');
    const message = 'Fix the parser\n\n# not a comment: kept\n- and a list\n';
    const r = await commit(run, wt.path, `\n${message}\n\n`);
    expect(r).toMatchObject({ branch: wt.branch, summary: 'Fix the parser', files: 3 });
    expect(runGit(wt.path, 'rev-parse', 'HEAD')).toBe(r.sha);
    expect(runGit(wt.path, 'log', '-1', '--format=%B')).toBe(message.trim());
    expect(runGit(wt.path, 'show', '--name-status', '--format=', 'HEAD').split('\n').sort()).toEqual(
      ['D\tb.txt', 'M\ta.txt', 'A\tnew/file.ts'].sort(),
    );
    expect(statusLines(wt.path)).toEqual(['!! .env']);
    // main has not moved: committing is not merging.
    expect(runGit(repo, 'log', '--format=%s', '-1')).toBe('files');
  });

  it('refuses an empty message, and a worktree with nothing to commit, each with what to do', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'a.txt', 'changed\n');
    for (const m of ['', '   \n\t\n', '\u001b[31m']) {
      const f = await failure(commit(run, wt.path, m));
      expect(f.code).toBe('REVIEW_EMPTY_MESSAGE');
      expect(f.message).toMatch(/The commit message is empty\. Write what the change does/);
    }
    await commit(run, wt.path, 'change a');
    const none = await failure(commit(run, wt.path, 'again'));
    expect(none).toMatchObject({ code: 'REVIEW_NOTHING_TO_COMMIT' });
    expect(runGit(wt.path, 'log', '--format=%s')).toBe('change a\nfiles\nfirst');
  });

  it('says how to set an identity when git has none, and leaves the index as it was', async () => {
    const repo = projectRepo();
    runGit(repo, 'config', '--unset', 'user.name');
    runGit(repo, 'config', '--unset', 'user.email');
    // Else git makes one up from the host name where that looks like a domain.
    runGit(repo, 'config', 'user.useConfigOnly', 'true');
    const wt = worktree(repo);
    write(wt.path, 'a.txt', 'changed\n');
    const f = await failure(commit(run, wt.path, 'x'));
    expect(f.code).toBe('REVIEW_NO_IDENTITY');
    expect(f.message).toContain('git config --global user.name');
    expect(statusLines(wt.path)).toEqual([' M a.txt']);
  });

  it('puts the index back when a hook refuses the commit (review.runHooks on)', async () => {
    const repo = projectRepo();
    write(repo, '.git/hooks/pre-commit', '#!/bin/sh\necho "lint failed: a.txt" >&2\nexit 1\n');
    fs.chmodSync(path.join(repo, '.git/hooks/pre-commit'), 0o755);
    const wt = worktree(repo);
    write(wt.path, 'a.txt', 'changed\n');
    write(wt.path, 'c.txt', 'new\n');
    runGit(wt.path, 'add', 'c.txt');
    const f = await failure(commit(runner({}, { runHooks: true }), wt.path, 'refused'));
    expect(f.code).toBe('REVIEW_GIT_FAILED');
    expect(f.message).toContain('lint failed: a.txt');
    expect(statusLines(wt.path).sort()).toEqual([' M a.txt', 'A  c.txt']);
  });
});
