/**
 * Throws away a worktree's uncommitted changes: tracked files back to HEAD, untracked and ignored
 * files removed (a .env, node_modules/ too). First the list, ignored files included, with a token
 * that names exactly that list and HEAD; only that token, while the list is still the same,
 * removes anything. Only in a linked worktree, never in a repository's main checkout.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { RudderError } from '../../errors.js';
import { parseStatus } from './parse.js';
import { headOf, inProgress, topOf } from './repo.js';
import { type GitRunner, ok } from './run.js';
import type { DiscardEntry, DiscardPreview, DiscardResult } from './types.js';

const LIST_BYTES = 4 * 1024 * 1024;

async function status(run: GitRunner, top: string): Promise<{ files: DiscardEntry[]; raw: string }> {
  const r = await run.git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored=matching'], {
    cwd: top,
    read: true,
    maxBytes: LIST_BYTES,
  });
  if (r.truncated)
    throw new RudderError(
      'REVIEW_TOO_MANY_FILES',
      `Remove them in a terminal there (git status --ignored lists them): ${top}.`,
      { worktree: top },
    );
  ok(r, 'git status');
  return { files: parseStatus(r.stdout), raw: r.stdout };
}

async function linkedWorktree(run: GitRunner, top: string): Promise<void> {
  const r = ok(
    await run.git(['rev-parse', '--git-dir', '--git-common-dir'], { cwd: top, read: true }),
    'git rev-parse',
  );
  const [gitDir = '', common = ''] = r.stdout.trim().split('\n');
  const real = (p: string) => fs.realpathSync(p.startsWith('/') ? p : `${top}/${p}`);
  if (real(gitDir) === real(common))
    throw new RudderError('REVIEW_NOT_A_WORKTREE', `${top} is one.`, { worktree: top });
}

export async function discardPreview(run: GitRunner, worktree: string): Promise<DiscardPreview> {
  const top = await topOf(run, worktree);
  await linkedWorktree(run, top);
  const { head } = await headOf(run, top);
  const { files, raw } = await status(run, top);
  const token = createHash('sha256')
    .update(`${head ?? ''}\0${raw}`)
    .digest('hex')
    .slice(0, 16);
  return { worktree: top, files, token };
}

export async function discard(run: GitRunner, worktree: string, o: { confirm: string }): Promise<DiscardResult> {
  const now = await discardPreview(run, worktree);
  if (o.confirm !== now.token)
    throw new RudderError(
      'REVIEW_CONFIRM_STALE',
      `${now.files.length} file(s) are uncommitted now; look at the new list and confirm again.`,
      { worktree: now.worktree, token: now.token, files: now.files.length },
    );
  if (!now.files.length) return { removed: [], remaining: [] };
  const top = now.worktree;
  const busy = await inProgress(run, top);
  // A reset ends a merge, cherry-pick or revert; a rebase it would leave half-way.
  if (busy === 'a rebase')
    throw new RudderError('REVIEW_OPERATION_IN_PROGRESS', `${top} is in the middle of ${busy}.`, { worktree: top });
  ok(await run.git(['reset', '--hard', '--quiet', 'HEAD'], { cwd: top }), 'git reset');
  // One -f: a nested repository is kept (and reported as remaining).
  ok(await run.git(['clean', '-f', '-d', '-x', '--quiet'], { cwd: top }), 'git clean');
  const remaining = (await status(run, top)).files;
  const left = new Set(remaining.map((e) => e.path));
  return { removed: now.files.filter((e) => !left.has(e.path)), remaining };
}
