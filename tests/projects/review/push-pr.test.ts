/** Push to a bare remote on disk, and pull requests through a stand-in GitHub CLI (never the real one). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commit } from '../../../src/projects/changes/commit.js';
import { findGh, githubCli, openPullRequest } from '../../../src/projects/changes/pull-request.js';
import { push, withoutCredentials } from '../../../src/projects/changes/push.js';
import { tempDir } from '../../support/claude-rig.js';
import { runGit } from '../../support/git-rig.js';
import { bareRemote, commitAll, failure, projectRepo, runner, worktree, write } from './rig.js';

const run = runner();
const FAKE_GH = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../support/fake-gh.mjs');

/** A PATH with the stand-in gh first, and a file its calls are logged to. */
function fakeGh(auth: 'ok' | 'logged-out') {
  const bin = tempDir('ghbin');
  fs.symlinkSync(FAKE_GH, path.join(bin, 'gh'));
  const log = path.join(tempDir('ghlog'), 'calls.jsonl');
  const env = {
    ...process.env,
    PATH: `${bin}${path.delimiter}${process.env.PATH}`,
    FAKE_GH_LOG: log,
    FAKE_GH_AUTH: auth,
  };
  const calls = () =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { args: string[] }).args)
      : [];
  return { env, calls };
}

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

describe('pull requests', () => {
  it('without gh on PATH: says to install it and log in, and runs nothing', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    const env = { ...process.env, PATH: tempDir('nogh') };
    expect(findGh(env)).toBeUndefined();
    const cli = await githubCli(run, wt.path, env);
    expect(cli).toMatchObject({ available: false, code: 'REVIEW_GH_MISSING' });
    if (cli.available) throw new Error('unreachable');
    expect(cli.message).toMatch(/not installed\. Install gh .*run gh auth login/);
    expect(await openPullRequest(run, wt.path, { branch: wt.branch, base: 'main', title: 't', env })).toEqual({
      opened: false,
      code: 'REVIEW_GH_MISSING',
      message: cli.message,
    });
  });

  it('with gh logged out: says to run gh auth login, and never runs gh pr create', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    const gh = fakeGh('logged-out');
    const r = await openPullRequest(run, wt.path, { branch: wt.branch, base: 'main', title: 't', env: gh.env });
    expect(r).toMatchObject({ opened: false, code: 'REVIEW_GH_LOGGED_OUT' });
    if (r.opened) throw new Error('unreachable');
    expect(r.message).toContain('Run gh auth login');
    expect(gh.calls()).toEqual([['auth', 'status']]);
  });

  it('with gh logged in: opens the pull request of the branch into the base and returns its URL', async () => {
    const repo = projectRepo();
    const wt = worktree(repo);
    const gh = fakeGh('ok');
    const r = await openPullRequest(run, wt.path, {
      branch: wt.branch,
      base: 'main',
      title: 'Fix the parser',
      body: 'From the phone.',
      env: gh.env,
    });
    expect(r).toEqual({ opened: true, url: 'https://github.com/example/repo/pull/7', branch: wt.branch, base: 'main' });
    expect(gh.calls()).toEqual([
      ['auth', 'status'],
      ['pr', 'create', '--head', wt.branch, '--base', 'main', '--title', 'Fix the parser', '--body', 'From the phone.'],
    ]);
  });
});
