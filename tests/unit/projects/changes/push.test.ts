import { describe, expect, it } from 'vitest';
import { commit } from '../../../../src/projects/changes/commit.js';
import { push, withoutCredentials } from '../../../../src/projects/changes/push.js';
import { tempDir } from '../../../support/claude-rig.js';
import { runGit } from '../../../support/git-rig.js';
import { bareRemote, commitAll, failure, projectRepo, runner, worktree, write } from '../../../support/review-rig.js';

const run = runner();

describe('push', () => {
  it("pushes the worktree's branch to the bare remote, named in the result; again is up to date", async () => {
    const repo = projectRepo();
    const bare = bareRemote(repo);
    const wt = worktree(repo);
    write(wt.path, 'a.txt', 'agent\n');
    const c = await commit(run, wt.path, 'agent work');
    const p = await push(run, wt.path, wt.branch);
    expect(p).toEqual({ remote: 'origin', url: bare, branch: wt.branch, kind: 'created', head: c.sha });
    expect(runGit(bare, 'rev-parse', `refs/heads/${wt.branch}`)).toBe(c.sha);
    expect(runGit(bare, 'log', '--format=%s', '-1', wt.branch)).toBe('agent work');
    expect(await push(run, wt.path, wt.branch)).toMatchObject({ kind: 'up-to-date' });
    write(wt.path, 'a.txt', 'agent, more\n');
    const c2 = await commit(run, wt.path, 'more');
    expect(await push(run, wt.path, wt.branch)).toMatchObject({ kind: 'updated', head: c2.sha });
    expect(runGit(bare, 'rev-parse', `refs/heads/${wt.branch}`)).toBe(c2.sha);
  });

  it('says there is no remote; refuses a push the remote rejects, never forcing', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    write(wt.path, 'a.txt', 'agent\n');
    await commit(run, wt.path, 'agent');
    const none = await failure(push(run, wt.path, wt.branch));
    expect(none.code).toBe('REVIEW_NO_REMOTE');
    expect(none.message).toContain('git remote add origin <url>');

    const bare = bareRemote(repo);
    await push(run, wt.path, wt.branch);
    // Someone else pushed to the branch meanwhile.
    const other = tempDir('other');
    runGit(other, 'clone', '-q', bare, '.');
    runGit(other, 'checkout', '-q', wt.branch);
    write(other, 'x.txt', 'theirs\n');
    const theirs = commitAll(other, 'theirs');
    runGit(other, 'push', '-q', 'origin', wt.branch);
    write(wt.path, 'a.txt', 'agent 2\n');
    await commit(run, wt.path, 'agent 2');
    const rejected = await failure(push(run, wt.path, wt.branch));
    expect(rejected.code).toBe('REVIEW_PUSH_FAILED');
    expect(rejected.message).toMatch(/rejected|fetch first|non-fast-forward/);
    expect(runGit(bare, 'rev-parse', `refs/heads/${wt.branch}`)).toBe(theirs);
  });

  it('picks origin among several remotes, or the one named; keeps credentials out of what it reports', async () => {
    const repo = projectRepo();
    const backup = bareRemote(repo, 'backup');
    const origin = bareRemote(repo, 'origin');
    const wt = worktree(repo);
    write(wt.path, 'a.txt', 'agent\n');
    await commit(run, wt.path, 'agent');
    expect(await push(run, wt.path, wt.branch)).toMatchObject({ remote: 'origin', url: origin });
    expect(await push(run, wt.path, wt.branch, { remote: 'backup' })).toMatchObject({ remote: 'backup', url: backup });
    expect((await failure(push(run, wt.path, wt.branch, { remote: 'nope' }))).message).toContain(
      'There is no remote "nope"; remotes: backup, origin.',
    );
    expect(withoutCredentials('https://me:ghp_secret@github.com/a/b.git and ssh://git@host/x')).toBe(
      'https://***@github.com/a/b.git and ssh://***@host/x',
    );
  });
});
