/**
 * Commits everything in the worktree (ignored files aside) with the message as the person wrote
 * it: control sequences removed, surrounding blank lines trimmed, nothing else changed. When the
 * commit fails (a hook refused it), the index goes back to what it was before the staging.
 */
import { RudderError } from '../../errors.js';
import { stripControlSequences } from '../../security/control-sequences.js';
import { headOf, inProgress, topOf } from './repo.js';
import { complaint, type GitRunner, ok } from './run.js';
import type { CommitResult } from './types.js';

/** Commits run hooks; give them room. */
const COMMIT_TIMEOUT_MS = 120_000;

/** The message as git will store it, or REVIEW_EMPTY_MESSAGE. */
export function commitMessage(message: string): string {
  const clean = stripControlSequences(String(message ?? ''))
    .replace(/[ \t]+$/gm, '')
    .replace(/^\n+|\n+$/g, '');
  if (!clean.trim()) throw new RudderError('REVIEW_EMPTY_MESSAGE');
  return clean;
}

/** Whether git knows who commits (a configured name and email, or GIT_AUTHOR_*), else REVIEW_NO_IDENTITY. */
export async function checkIdentity(run: GitRunner, top: string): Promise<void> {
  for (const v of ['GIT_AUTHOR_IDENT', 'GIT_COMMITTER_IDENT']) {
    const r = await run.git(['var', v], { cwd: top, read: true });
    if (r.code !== 0) throw new RudderError('REVIEW_NO_IDENTITY', undefined, { cwd: top });
  }
}

export async function commit(run: GitRunner, worktree: string, message: string): Promise<CommitResult> {
  const text = commitMessage(message);
  const top = await topOf(run, worktree);
  const { branch } = await headOf(run, top);
  if (!branch)
    throw new RudderError('REVIEW_NOT_ON_BRANCH', `Check out a branch in ${top}, then commit.`, { worktree: top });
  const busy = await inProgress(run, top);
  if (busy)
    throw new RudderError('REVIEW_OPERATION_IN_PROGRESS', `${top} is in the middle of ${busy}.`, { worktree: top });
  await checkIdentity(run, top);
  // The index as it was, to put back if the commit does not happen.
  const before = ok(await run.git(['write-tree'], { cwd: top }), 'git write-tree').stdout.trim();
  ok(await run.git(['add', '--all'], { cwd: top }), 'git add');
  const staged = await run.git(['diff', '--cached', '--quiet'], { cwd: top, read: true });
  if (staged.code === 0) throw new RudderError('REVIEW_NOTHING_TO_COMMIT', undefined, { worktree: top });
  const r = await run.git(['commit', '--quiet', '--cleanup=whitespace', '-m', text], {
    cwd: top,
    timeoutMs: COMMIT_TIMEOUT_MS,
  });
  if (r.code !== 0) {
    await run.git(['read-tree', before], { cwd: top });
    throw new RudderError('REVIEW_GIT_FAILED', `git commit: ${complaint(r)}`, { worktree: top });
  }
  const sha = ok(await run.git(['rev-parse', 'HEAD'], { cwd: top, read: true }), 'git rev-parse').stdout.trim();
  const names = await run.git(['diff-tree', '--no-commit-id', '--name-only', '-r', '-z', '--root', 'HEAD'], {
    cwd: top,
    read: true,
  });
  return {
    branch,
    sha,
    summary: text.split('\n')[0]!,
    files: names.stdout.split('\0').filter(Boolean).length,
  };
}
