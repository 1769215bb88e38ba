/**
 * Merges a worktree's branch into its base branch, in the checkout where the base is checked
 * out (the project's own, usually): a fast-forward when the base has not moved, else a merge
 * commit. A conflict stops it: the conflicting files are read, the merge is aborted and the base's
 * checkout is checked to be exactly as before. The worktree itself is only read. Refused while
 * either tree has uncommitted changes (untracked files in the base's checkout do not count, and
 * git itself refuses to overwrite one).
 */
import { RudderError } from '../../errors.js';
import { checkIdentity } from './commit.js';
import { checkBranch, checkouts, headOf, inProgress, topOf, uncommitted } from './repo.js';
import { complaint, type GitRunner, ok } from './run.js';
import type { MergeResult } from './types.js';

const MERGE_TIMEOUT_MS = 120_000;
const SHOWN = 10;

export interface MergeOptions {
  /** The merge commit's message (git's "Merge branch '…'" when absent). */
  message?: string;
}

const list = (files: string[]) =>
  files.slice(0, SHOWN).join(', ') + (files.length > SHOWN ? ` and ${files.length - SHOWN} more` : '');

async function sha(run: GitRunner, dir: string, ref: string): Promise<string> {
  return ok(
    await run.git(['rev-parse', '-q', '--verify', ref], { cwd: dir, read: true }),
    'git rev-parse',
  ).stdout.trim();
}

/** The checkout is as it was: HEAD where it was, no merge under way, no tracked change, the same untracked files. */
async function unchanged(run: GitRunner, dir: string, head: string, untracked: string[]): Promise<string | undefined> {
  const now = await sha(run, dir, 'HEAD');
  if (now !== head) return `HEAD is at ${now.slice(0, 12)}, not ${head.slice(0, 12)}`;
  const busy = await inProgress(run, dir);
  if (busy) return `${busy} is still under way`;
  const s = await uncommitted(run, dir);
  if (s.tracked.length) return `it has changes: ${list(s.tracked)}`;
  const before = new Set(untracked);
  const added = s.untracked.filter((p) => !before.has(p));
  if (added.length) return `it has new untracked files: ${list(added)}`;
  return undefined;
}

export async function merge(
  run: GitRunner,
  worktree: string,
  base: string,
  o: MergeOptions = {},
): Promise<MergeResult> {
  const { top, head, branch, baseSha } = await mergeable(run, worktree, base);
  const commits = Number(
    ok(await run.git(['rev-list', '--count', `${baseSha}..${head}`], { cwd: top, read: true }), 'git rev-list').stdout,
  );
  if (!commits) return { kind: 'up-to-date', branch, base, head: baseSha };
  const ff = (await run.git(['merge-base', '--is-ancestor', baseSha, head], { cwd: top, read: true })).code === 0;
  const at = (await checkouts(run, top)).get(base);
  if (!at) {
    if (!ff)
      throw new RudderError(
        'REVIEW_MERGE_FAILED',
        `${base} is not checked out anywhere and has moved on, so a merge commit has no tree to be made in. ` +
          `Check ${base} out in the project, then merge.`,
        { base },
      );
    // A fast-forward of a branch nobody has checked out: the ref moves, only if it is still where it was.
    ok(await run.git(['update-ref', `refs/heads/${base}`, head, baseSha], { cwd: top }), 'git update-ref');
    return { kind: 'fast-forward', branch, base, from: baseSha, to: head, commits };
  }
  const untracked = await baseReady(run, at, base);
  if (!ff) await checkIdentity(run, at);
  const args = ff
    ? ['merge', '--ff-only', '--no-autostash', '--quiet', branch]
    : ['merge', '--no-ff', '--no-edit', '--no-autostash', '--quiet', ...(o.message ? ['-m', o.message] : []), branch];
  const r = await run.git(args, { cwd: at, timeoutMs: MERGE_TIMEOUT_MS });
  if (r.code === 0)
    return {
      kind: ff ? 'fast-forward' : 'merge-commit',
      branch,
      base,
      from: baseSha,
      to: await sha(run, at, 'HEAD'),
      commits,
    };
  return stopped(run, { at, top, head, base, baseSha, branch, untracked, why: complaint(r) });
}

/** The worktree can be merged: on a branch other than the base, the base known, nothing uncommitted. */
async function mergeable(run: GitRunner, worktree: string, base: string) {
  const top = await topOf(run, worktree);
  const { head, branch } = await headOf(run, top);
  if (!branch || !head)
    throw new RudderError('REVIEW_NOT_ON_BRANCH', `Check out a branch in ${top}, then merge.`, { worktree: top });
  if (branch === base)
    throw new RudderError('REVIEW_BASE_UNKNOWN', `The worktree is on ${base} itself; there is nothing to merge.`);
  const baseSha = await checkBranch(run, top, base, 'the branch to merge into');
  const mine = await uncommitted(run, top);
  const dirty = [...mine.tracked, ...mine.untracked];
  if (dirty.length)
    throw new RudderError(
      'REVIEW_WORKTREE_DIRTY',
      `The worktree ${top} has uncommitted changes: ${list(dirty)}. Commit or discard them, then merge.`,
      { tree: 'worktree', dir: top, files: dirty },
    );
  return { top, head, branch, baseSha };
}

/** The base's checkout takes a merge: none under way, no tracked change. Its untracked files, to check after. */
async function baseReady(run: GitRunner, at: string, base: string): Promise<string[]> {
  const busy = await inProgress(run, at);
  if (busy)
    throw new RudderError(
      'REVIEW_OPERATION_IN_PROGRESS',
      `${at} (where ${base} is checked out) is in the middle of ${busy}.`,
      {
        tree: 'base',
        dir: at,
      },
    );
  const theirs = await uncommitted(run, at);
  if (theirs.tracked.length)
    throw new RudderError(
      'REVIEW_BASE_DIRTY',
      `${at} (where ${base} is checked out) has uncommitted changes: ${list(theirs.tracked)}. Commit or stash ` +
        `them there, then merge.`,
      { tree: 'base', dir: at, files: theirs.tracked },
    );
  return theirs.untracked;
}

/** A merge that did not finish: conflicts named, the merge aborted, both trees checked; else why it failed. */
async function stopped(
  run: GitRunner,
  m: {
    at: string;
    top: string;
    head: string;
    base: string;
    baseSha: string;
    branch: string;
    untracked: string[];
    why: string;
  },
): Promise<MergeResult> {
  const started = (await run.git(['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd: m.at, read: true })).code === 0;
  let files: string[] = [];
  if (started) {
    const u = await run.git(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd: m.at, read: true });
    files = u.stdout.split('\0').filter(Boolean);
    ok(await run.git(['merge', '--abort'], { cwd: m.at }), 'git merge --abort');
  }
  const left = await unchanged(run, m.at, m.baseSha, m.untracked);
  const mine = await unchanged(run, m.top, m.head, []);
  if (left || mine)
    throw new RudderError(
      'REVIEW_MERGE_NOT_CLEAN',
      left ? `In ${m.at}: ${left}.` : `In the worktree ${m.top}: ${mine}.`,
      { base: m.base, dir: left ? m.at : m.top },
    );
  if (files.length) return { kind: 'conflict', branch: m.branch, base: m.base, files, clean: true };
  throw new RudderError('REVIEW_MERGE_FAILED', `git merge: ${m.why}`, { base: m.base, dir: m.at });
}
