/** The review's git runner: GIT_* variables cannot point it elsewhere, outputs are bounded, time is bounded. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { changes } from '../../../../src/projects/changes/changes.js';
import { GitRunner, reviewEnv } from '../../../../src/projects/changes/run.js';
import { pidAlive, tempDir, waitUntil } from '../../../support/claude-rig.js';
import { commitAll, failure, projectRepo, runner, worktree, write } from '../../../support/review-rig.js';

describe('the review git runner', () => {
  it('ignores GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE and the rest inherited from its environment', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'a.txt', 'agent\n');
    const elsewhere = projectRepo();
    const run = runner({
      GIT_DIR: path.join(elsewhere, '.git'),
      GIT_WORK_TREE: elsewhere,
      GIT_INDEX_FILE: path.join(elsewhere, '.git', 'index'),
      GIT_CONFIG_PARAMETERS: "'core.hooksPath'='/nonexistent'",
      GIT_AUTHOR_NAME: 'Kept Name',
    });
    const set = await changes(run, wt.path, 'main');
    expect(set.worktree).toBe(wt.path);
    expect(set.branch).toBe(wt.branch);
    expect(set.sections.unstaged.files.map((f) => f.path)).toEqual(['a.txt']);
    const env = reviewEnv({
      GIT_DIR: '/x',
      GIT_EXEC_PATH: '/y',
      GIT_AUTHOR_NAME: 'n',
      GIT_SSH_COMMAND: 'ssh',
      PATH: '/bin',
    });
    expect(env).toEqual({
      GIT_AUTHOR_NAME: 'n',
      GIT_SSH_COMMAND: 'ssh',
      PATH: '/bin',
      GIT_TERMINAL_PROMPT: '0',
      GIT_EDITOR: 'true',
      GIT_PAGER: 'cat',
    });
  });

  it('stops a command at its output bound and marks the output cut', async () => {
    const repo = projectRepo();
    for (let i = 0; i < 30; i++) {
      write(repo, 'log.txt', `${i}\n`);
      commitAll(repo, `commit number ${i} with a message long enough to fill the bound`);
    }
    const run = runner();
    const r = await run.git(['log'], { cwd: repo, read: true, maxBytes: 2000 });
    expect(r.truncated).toBe(true);
    expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(2000);
    const whole = await run.git(['log'], { cwd: repo, read: true });
    expect(whole).toMatchObject({ code: 0, truncated: false });
    expect(Buffer.byteLength(whole.stdout)).toBeGreaterThan(2000);
  });

  it('kills a command past its time limit, with what it started, and says so', async () => {
    const run = new GitRunner({ timeoutMs: 500 });
    const pidFile = path.join(tempDir('pid'), 'child');
    // A fixture program standing in for a git that hangs and has a child of its own.
    const p = run.exec('sh', ['-c', `sleep 120 & echo $! > '${pidFile}'; wait`], { cwd: tempDir('cwd') });
    const f = await failure(p);
    expect(f.code).toBe('REVIEW_GIT_TIMEOUT');
    expect(f.message).toContain('timeout after 1 s');
    const child = Number(fs.readFileSync(pidFile, 'utf8'));
    await waitUntil(() => !pidAlive(child), 10_000);
    expect(run.running()).toBe(0);
  });

  it('says when the directory is gone, instead of blaming git', async () => {
    const f = await failure(runner().git(['status'], { cwd: path.join(tempDir('gone'), 'nope') }));
    expect(f.code).toBe('REVIEW_GIT_FAILED');
    expect(f.message).toMatch(/nope does not exist/);
  });
});
