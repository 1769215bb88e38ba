/** Pull requests through a stand-in GitHub CLI (never the real one). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findGh, githubCli, openPullRequest } from '../../../../src/projects/changes/pull-request.js';
import { tempDir } from '../../../support/claude-rig.js';
import { projectRepo, runner, worktree } from '../../../support/review-rig.js';

const run = runner();
const FAKE_GH = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../support/fake-gh.mjs');

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
