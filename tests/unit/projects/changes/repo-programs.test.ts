/**
 * Review git runs nothing the repository names (real git, real repositories): an agent can write
 * `.git/config` and `.gitattributes`, so a filter or merge driver, a hook, an ssh command, a signing
 * program, a credential helper or an ext:: remote there must not run when the person reviews, commits,
 * merges or pushes. Each program writes a marker file when it runs; a control run of plain git shows the
 * setup does run it. The person's own hooks run only when they turned on review.runHooks.
 */

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commit, merge, push, workingChanges } from '../../../../src/projects/changes/index.js';
import { parseConfigList, repositoryOverrides } from '../../../../src/projects/changes/repo-config.js';
import { GitRunner } from '../../../../src/projects/changes/run.js';
import { tempDir } from '../../../support/claude-rig.js';
import { GIT_ENV, gitRepo, runGit } from '../../../support/git-rig.js';

/** A runner as the gateway makes one, with an empty HOME: only the repository's own config counts. */
const runner = (o: { runHooks?: boolean; env?: NodeJS.ProcessEnv } = {}) =>
  new GitRunner({ env: { ...GIT_ENV, HOME: tempDir('githome'), ...o.env }, runHooks: o.runHooks });

/** A shell command that writes the marker `name` in dir (and exits with `exit`, when given). */
const marks = (dir: string, name: string, exit?: number) =>
  `touch '${path.join(dir, name)}'${exit === undefined ? '' : `; exit ${exit}`}`;
const ran = (dir: string, name: string) => fs.existsSync(path.join(dir, name));

function hook(repo: string, name: string, body: string): void {
  const file = path.join(repo, '.git', 'hooks', name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`);
  fs.chmodSync(file, 0o755);
}

/** A repository whose own config names a clean filter (picked by .gitattributes for *.txt). */
function filteredRepo(markers: string): string {
  const repo = gitRepo();
  fs.writeFileSync(path.join(repo, '.gitattributes'), '*.txt filter=evil\n');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  runGit(repo, 'add', '.');
  runGit(repo, 'commit', '-qm', 'text');
  runGit(repo, 'config', 'filter.evil.clean', `${marks(markers, 'clean-ran')}; cat`);
  runGit(repo, 'config', 'filter.evil.required', 'true');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo\n');
  return repo;
}

describe("review git and the repository's programs", () => {
  it('a filter the repository names does not run when its changes are read or committed', async () => {
    const markers = tempDir('markers');
    const repo = filteredRepo(markers);
    const set = await workingChanges(runner(), repo);
    expect(set.sections.unstaged.files.map((f) => f.path)).toEqual(['a.txt']);
    expect(ran(markers, 'clean-ran')).toBe(false);
    const c = await commit(runner(), repo, 'two');
    expect(c.files).toBe(1);
    expect(ran(markers, 'clean-ran')).toBe(false);
    // The file went in as it is, not through the filter.
    expect(runGit(repo, 'show', 'HEAD:a.txt')).toBe('one\ntwo');
    // Control: plain git runs it.
    fs.appendFileSync(path.join(repo, 'a.txt'), 'three\n');
    runGit(repo, 'diff');
    expect(ran(markers, 'clean-ran')).toBe(true);
  });

  it('commit runs no hook, and no signing program the repository names', async () => {
    const markers = tempDir('markers');
    const repo = gitRepo();
    for (const h of ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit']) hook(repo, h, marks(markers, h));
    runGit(repo, 'config', 'commit.gpgSign', 'true');
    runGit(repo, 'config', 'gpg.program', marks(markers, 'gpg-ran', 1));
    fs.writeFileSync(path.join(repo, 'b.txt'), 'b\n');
    await commit(runner(), repo, 'add b').catch(() => undefined);
    expect(fs.readdirSync(markers)).toEqual([]);
    // Control: plain git runs them.
    runGit(repo, 'config', 'commit.gpgSign', 'false');
    runGit(repo, 'add', '.');
    runGit(repo, 'commit', '-qm', 'by hand');
    expect(fs.readdirSync(markers).sort()).toEqual(['commit-msg', 'post-commit', 'pre-commit', 'prepare-commit-msg']);
  });

  it("runs the person's hooks on their commits when review.runHooks is on", async () => {
    const markers = tempDir('markers');
    const repo = gitRepo();
    hook(repo, 'pre-commit', marks(markers, 'pre-commit'));
    fs.writeFileSync(path.join(repo, 'b.txt'), 'b\n');
    await commit(runner({ runHooks: true }), repo, 'add b');
    expect(ran(markers, 'pre-commit')).toBe(true);
  });

  it('merge runs no hook and no merge driver the repository names; the merge is git’s own', async () => {
    const markers = tempDir('markers');
    const repo = gitRepo();
    fs.writeFileSync(path.join(repo, '.gitattributes'), '*.txt merge=evil\n');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a\nb\nc\n');
    runGit(repo, 'add', '.');
    runGit(repo, 'commit', '-qm', 'base');
    const wt = path.join(tempDir('wt'), 'feature');
    runGit(repo, 'worktree', 'add', '-q', '-b', 'feature', wt);
    fs.writeFileSync(path.join(wt, 'a.txt'), 'a\nb\nC\n');
    runGit(wt, 'commit', '-qam', 'feature');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'A\nb\nc\n');
    runGit(repo, 'commit', '-qam', 'main moved');
    runGit(repo, 'config', 'merge.evil.driver', marks(markers, 'driver-ran'));
    hook(repo, 'post-merge', marks(markers, 'post-merge'));
    hook(repo, 'pre-merge-commit', marks(markers, 'pre-merge-commit'));
    const r = await merge(runner(), wt, 'main');
    expect(r.kind).toBe('merge-commit');
    expect(fs.readdirSync(markers)).toEqual([]);
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('A\nb\nC\n');
  });

  it('push runs no hook, no ssh command or pack program the repository names, and no ext:: remote', async () => {
    const markers = tempDir('markers');
    const repo = gitRepo();
    const bare = fs.realpathSync(tempDir('bare'));
    runGit(bare, 'init', '-q', '--bare', '-b', 'main');
    runGit(repo, 'remote', 'add', 'origin', bare);
    hook(repo, 'pre-push', marks(markers, 'pre-push'));
    runGit(repo, 'config', 'remote.origin.receivepack', `${marks(markers, 'receivepack-ran')}; git-receive-pack "$@"`);
    const r = await push(runner(), repo, 'main');
    expect(r.kind).toBe('created');
    expect(runGit(bare, 'rev-parse', 'main')).toBe(runGit(repo, 'rev-parse', 'main'));
    expect(fs.readdirSync(markers)).toEqual([]);
    // Control: plain git runs them.
    runGit(repo, 'commit', '-q', '--allow-empty', '-m', 'more');
    runGit(repo, 'push', '-q', 'origin', 'main');
    expect(fs.readdirSync(markers).sort()).toEqual(['pre-push', 'receivepack-ran']);
    for (const f of fs.readdirSync(markers)) fs.rmSync(path.join(markers, f));

    // An ssh remote: the repository's core.sshCommand never runs; the person's own ssh (GIT_SSH) does.
    const ownSsh = path.join(tempDir('ssh'), 'ssh');
    fs.writeFileSync(ownSsh, `#!/bin/sh\n${marks(markers, 'own-ssh', 1)}\n`);
    fs.chmodSync(ownSsh, 0o755);
    runGit(repo, 'config', 'core.sshCommand', marks(markers, 'repo-ssh', 1));
    runGit(repo, 'remote', 'set-url', 'origin', 'ssh://git@example.invalid/x.git');
    await expect(push(runner({ env: { GIT_SSH: ownSsh } }), repo, 'main')).rejects.toThrow();
    expect(fs.readdirSync(markers)).toEqual(['own-ssh']);

    // An ext:: remote is a shell command: refused, even when the repository allows it.
    runGit(repo, 'config', 'protocol.ext.allow', 'always');
    runGit(repo, 'remote', 'set-url', 'origin', `ext::sh -c touch% ${path.join(markers, 'ext-ran')}`);
    await expect(push(runner(), repo, 'main')).rejects.toThrow(/ext/);
    expect(ran(markers, 'ext-ran')).toBe(false);
  });

  it("asks the person's credential helpers, never one the repository names", () => {
    const markers = tempDir('markers');
    const repo = gitRepo();
    const home = tempDir('githome');
    const env = { ...GIT_ENV, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
    const git = (args: string[], input?: string) =>
      execFileSync('git', args, { cwd: repo, env, input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
    git(['config', '--global', 'credential.https://example.com.helper', `!${marks(markers, 'own')}; echo password=p`]);
    git(['config', 'credential.helper', `!${marks(markers, 'repo')}; echo password=r`]);
    git(['config', 'credential.useHttpPath', 'false']);
    const ask = 'protocol=https\nhost=example.com\nusername=u\n\n';
    const { config } = repositoryOverrides(parseConfigList(git(['config', '--list', '--show-scope', '-z'])), env);
    expect(git([...config, 'credential', 'fill'], ask)).toContain('password=p');
    expect(fs.readdirSync(markers)).toEqual(['own']);
    // Control: without the overrides the repository's helper runs too (after the person's, which answered).
    fs.rmSync(path.join(markers, 'own'));
    git(['config', '--global', '--unset', 'credential.https://example.com.helper']);
    expect(git(['credential', 'fill'], ask)).toContain('password=r');
    expect(fs.readdirSync(markers)).toEqual(['repo']);
  });
});
