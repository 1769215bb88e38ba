/**
 * Facts about a repository every review step needs: its top, HEAD and branch, a base branch
 * checked as a name git accepts, where each branch is checked out, and what is uncommitted.
 */
import { RudderError } from '../../errors.js';
import { type GitRunner, ok } from './run.js';

/** git's empty tree: what a repository without commits is compared with. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export async function topOf(run: GitRunner, dir: string): Promise<string> {
  const r = await run.git(['rev-parse', '--show-toplevel'], { cwd: dir, read: true });
  if (r.code !== 0) throw new RudderError('NOT_A_GIT_REPO', `${dir} is not inside a git repository.`, { cwd: dir });
  return r.stdout.trim();
}

/** HEAD's commit (null before the first commit) and its branch (null when detached). */
export async function headOf(run: GitRunner, top: string): Promise<{ head: string | null; branch: string | null }> {
  const [head, branch] = await Promise.all([
    run.git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: top, read: true }),
    run.git(['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: top, read: true }),
  ]);
  return {
    head: head.code === 0 ? head.stdout.trim() : null,
    branch: branch.code === 0 ? branch.stdout.trim() : null,
  };
}

/** The branch checked out in dir (the project's checkout: what its conversations' work merges into). */
export async function baseBranchOf(run: GitRunner, dir: string): Promise<string> {
  const r = await run.git(['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: dir, read: true });
  if (r.code !== 0)
    throw new RudderError(
      'REVIEW_BASE_UNKNOWN',
      `${dir} is not on a branch (detached HEAD), so there is no base branch. Check out the branch to merge ` +
        'into there.',
      { cwd: dir },
    );
  return r.stdout.trim();
}

/** A branch name git accepts and that exists; never one that could read as an option. */
export async function checkBranch(run: GitRunner, top: string, name: string, role: string): Promise<string> {
  const bad = () =>
    new RudderError('REVIEW_BASE_UNKNOWN', `"${name}" is not a branch name (${role}).`, { branch: name });
  if (name.startsWith('-')) throw bad();
  if ((await run.git(['check-ref-format', '--branch', name], { cwd: top, read: true })).code !== 0) throw bad();
  const sha = await run.git(['rev-parse', '-q', '--verify', `refs/heads/${name}^{commit}`], { cwd: top, read: true });
  if (sha.code !== 0)
    throw new RudderError('REVIEW_BASE_UNKNOWN', `There is no branch ${name} (${role}).`, { branch: name });
  return sha.stdout.trim();
}

/** A commit-ish for comparisons: a branch name, or anything git resolves that does not start with "-". */
export async function resolveCommit(run: GitRunner, top: string, ref: string): Promise<string> {
  const none = () => new RudderError('REVIEW_BASE_UNKNOWN', `"${ref}" names no commit in ${top}.`, { base: ref });
  if (ref.startsWith('-')) throw none();
  const r = await run.git(['rev-parse', '-q', '--verify', `${ref}^{commit}`], { cwd: top, read: true });
  if (r.code !== 0) throw none();
  return r.stdout.trim();
}

/** Where each branch is checked out (real paths git reports), from `git worktree list --porcelain`. */
export async function checkouts(run: GitRunner, top: string): Promise<Map<string, string>> {
  // No -z: it needs git 2.36, and worktree paths with a newline are not worth that.
  const r = ok(await run.git(['worktree', 'list', '--porcelain'], { cwd: top, read: true }), 'git worktree list');
  const out = new Map<string, string>();
  let dir: string | undefined;
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('worktree ')) dir = line.slice(9);
    else if (line.startsWith('branch refs/heads/') && dir) out.set(line.slice(18), dir);
  }
  return out;
}

/** `git status --porcelain` lines of tracked changes (staged, unstaged, unmerged), and untracked paths apart. */
export async function uncommitted(run: GitRunner, top: string): Promise<{ tracked: string[]; untracked: string[] }> {
  const r = ok(
    await run.git(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: top, read: true }),
    'git status',
  );
  const tracked: string[] = [];
  const untracked: string[] = [];
  const t = r.stdout.split('\0');
  for (let i = 0; i < t.length; i++) {
    const tok = t[i]!;
    if (tok.length < 4) continue;
    if (tok.startsWith('??')) untracked.push(tok.slice(3));
    else tracked.push(tok.slice(3));
    if (tok[0] === 'R' || tok[0] === 'C') i++; // the original path follows
  }
  return { tracked, untracked };
}

/** An operation in progress in a checkout (a merge, rebase, cherry-pick or revert git would continue). */
export async function inProgress(run: GitRunner, top: string): Promise<string | undefined> {
  for (const [ref, what] of [
    ['MERGE_HEAD', 'a merge'],
    ['CHERRY_PICK_HEAD', 'a cherry-pick'],
    ['REVERT_HEAD', 'a revert'],
    ['REBASE_HEAD', 'a rebase'],
  ] as const) {
    const r = await run.git(['rev-parse', '-q', '--verify', ref], { cwd: top, read: true });
    if (r.code === 0) return what;
  }
  return undefined;
}
