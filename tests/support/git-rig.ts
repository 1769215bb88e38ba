/** Real git repositories in temp dirs for worktree tests, with a fixed identity and one commit. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './claude-rig.js';

export const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

export function runGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A repository (its real path) on branch main with README.md committed, unless told to stay empty. */
export function gitRepo(opts: { empty?: boolean } = {}): string {
  const dir = fs.realpathSync(tempDir('repo'));
  runGit(dir, 'init', '-q', '-b', 'main');
  if (!opts.empty) {
    fs.writeFileSync(path.join(dir, 'README.md'), '# test\n');
    runGit(dir, 'add', '.');
    runGit(dir, 'commit', '-q', '-m', 'first');
  }
  return dir;
}
