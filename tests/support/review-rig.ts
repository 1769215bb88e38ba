/**
 * Real repositories for the review tests: a project repository with a committed identity and a
 * few files, a conversation's worktree made by the real worktree manager, a bare remote on disk,
 * and a GitRunner whose HOME is empty (no personal git config leaks in).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isRudderError } from '../../src/errors.js';
import { GitRunner } from '../../src/projects/changes/run.js';
import type { Project } from '../../src/projects/projects.js';
import { ensureWorktree, type Worktree } from '../../src/projects/worktree.js';
import { tempDir } from './claude-rig.js';
import { GIT_ENV, gitRepo, runGit } from './git-rig.js';
import type { MockApi, MockReply } from './mock-anthropic.js';

export const A_TXT = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'].join('\n') + '\n';
export const B_TXT = 'one\ntwo\nthree\n';

/** A runner with an empty HOME, so only the repository's own config counts (its hooks run with runHooks). */
export function runner(extra: NodeJS.ProcessEnv = {}, o: { runHooks?: boolean } = {}): GitRunner {
  return new GitRunner({ env: { ...process.env, HOME: tempDir('githome'), ...extra }, runHooks: o.runHooks });
}

/** A project repository on main: README.md, a.txt, b.txt and .gitignore (.env, dist/), with a local identity. */
export function projectRepo(): string {
  const repo = gitRepo();
  runGit(repo, 'config', 'user.name', 'Review Test');
  runGit(repo, 'config', 'user.email', 'review@example.com');
  write(repo, 'a.txt', A_TXT);
  write(repo, 'b.txt', B_TXT);
  write(repo, '.gitignore', '.env\ndist/\n');
  runGit(repo, 'add', '.');
  runGit(repo, 'commit', '-qm', 'files');
  return repo;
}

export function project(repo: string): Project {
  return { name: 'repo', path: repo, implicit: false, worktrees: { dir: undefined } };
}

/** The conversation's worktree, made as a turn would make it. */
export function worktree(repo: string, conversationId = 'web:c-review'): Worktree {
  return ensureWorktree(project(repo), conversationId);
}

/** A bare repository on disk added to repo as `origin`. */
export function bareRemote(repo: string, name = 'origin'): string {
  const bare = fs.realpathSync(tempDir('bare'));
  runGit(bare, 'init', '-q', '--bare', '-b', 'main');
  runGit(repo, 'remote', 'add', name, bare);
  return bare;
}

export function write(dir: string, rel: string, text: string | Buffer): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
}

export const read = (dir: string, rel: string) => fs.readFileSync(path.join(dir, rel), 'utf8');

/** Commits everything in dir with runGit (the test's own hand, not the code under test). */
export function commitAll(dir: string, message: string): string {
  runGit(dir, 'add', '-A');
  runGit(dir, 'commit', '-qm', message);
  return runGit(dir, 'rev-parse', 'HEAD');
}

/** `git status --porcelain --ignored` lines: what a tree holds beyond HEAD. */
export const statusLines = (dir: string) =>
  execFileSync('git', ['status', '--porcelain', '--ignored', '--untracked-files=all'], { cwd: dir, env: GIT_ENV })
    .toString('utf8')
    .split('\n')
    .filter(Boolean);

/** The code and message of the RudderError a promise rejects with. */
export async function failure(p: Promise<unknown>): Promise<{ code: string; message: string; context: unknown }> {
  try {
    await p;
  } catch (err) {
    if (isRudderError(err)) return { code: err.code, message: err.message, context: err.context };
    throw err;
  }
  throw new Error('expected a refusal, but it succeeded');
}

/**
 * The mock makes the agent edit its worktree in a turn whose message carries `tag` (one tool call per
 * request): a.txt's gamma uppercased, b.txt's "two" dropped, src/parser.ts written; then it says so.
 */
export function agentEdits(mock: MockApi, worktreeOf: () => string, tag = 'tag:review-edit'): void {
  const steps = (wt: string): MockReply[] => [
    { kind: 'tool', name: 'Read', input: { file_path: path.join(wt, 'a.txt') } },
    {
      kind: 'tool',
      name: 'Edit',
      input: { file_path: path.join(wt, 'a.txt'), old_string: 'gamma', new_string: 'GAMMA' },
    },
    { kind: 'tool', name: 'Read', input: { file_path: path.join(wt, 'b.txt') } },
    {
      kind: 'tool',
      name: 'Edit',
      input: { file_path: path.join(wt, 'b.txt'), old_string: 'one\ntwo\n', new_string: 'one\n' },
    },
    {
      kind: 'tool',
      name: 'Write',
      input: { file_path: path.join(wt, 'src', 'parser.ts'), content: 'export const parse = (s: string) => s;\n' },
    },
    { kind: 'text', text: `Edited a.txt and b.txt and added src/parser.ts. ${tag}` },
  ];
  let step = -1;
  mock.setScript((req) => {
    if (req.side) return undefined;
    if (!req.afterTool) step = req.lastText.includes(tag) ? 0 : -1;
    else if (step >= 0) step++;
    return step >= 0 ? steps(worktreeOf())[step] : undefined;
  });
}
