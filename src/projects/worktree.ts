/**
 * A conversation's own git worktree in a project with `worktrees`: a branch `rudder/<conversation>`
 * made from the project's HEAD at the conversation's first turn, checked out in a directory beside
 * the repository (or in `worktrees.dir`), so two agents never edit the same files.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { RudderError } from '../errors.js';
import { git, gitComplaint, gitSync, repoTopSync } from '../ops/git.js';
import type { Project } from './projects.js';

export interface Worktree {
  /** The worktree's top directory. */
  path: string;
  branch: string;
  /**
   * Where the agent works: the project's place inside the worktree (a project may be a subdirectory of its repository).
   */
  cwd: string;
}

const short = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 6);

/** A git-safe name of a conversation; a hash is added when characters had to be replaced, so two ids never meet. */
function safeSegment(s: string): string {
  let out = s
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/\.{2,}/g, '-')
    .replace(/^[.-]+/, '')
    .replace(/(\.lock|\.)+$/, '');
  if (!out) out = 'c';
  return out === s ? out : `${out}-${short(s)}`;
}

/** `web:c-1a2b` -> `rudder/web/c-1a2b`. */
export function branchFor(conversationId: string): string {
  const [channel, ...rest] = conversationId.split(':');
  return ['rudder', safeSegment(channel!), ...(rest.length ? [safeSegment(rest.join(':'))] : [])].join('/');
}

/**
 * The directory a project's conversation worktrees go in: `worktrees.dir`, else `<repository>.rudder-worktrees` beside
 * it.
 */
export function worktreesDir(project: Project, top: string): string {
  const dir = project.worktrees ? project.worktrees.dir : undefined;
  return dir ?? path.join(path.dirname(top), `${path.basename(top)}.rudder-worktrees`);
}

function repoOf(project: Project): { top: string; prefix: string } {
  const top = repoTopSync(project.path);
  if (!top)
    throw new RudderError(
      'NOT_A_GIT_REPO',
      `${project.path} (project ${project.name}) is not one. Run git init there and commit once, or set ` +
        `projects.${project.name}.worktrees to false.`,
      { project: project.name },
    );
  const prefix = gitSync(['rev-parse', '--show-prefix'], project.path).stdout.trim();
  return { top, prefix };
}

/** Worktree paths git knows for this repository (real paths). */
function registered(top: string): Set<string> {
  const r = gitSync(['worktree', 'list', '--porcelain'], top);
  return new Set(
    r.stdout
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .map((l) => safeReal(l.slice(9))),
  );
}

function safeReal(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/**
 * The conversation's worktree, made when it has none: synchronous, because an agent launch is
 * built synchronously; it runs once per conversation and project (a `git worktree add`).
 */
export function ensureWorktree(
  project: Project,
  conversationId: string,
  known?: { worktree: string | null; branch: string | null },
): Worktree {
  const { top, prefix } = repoOf(project);
  const branch = known?.branch ?? branchFor(conversationId);
  const wt = known?.worktree ?? path.join(worktreesDir(project, top), safeSegment(conversationId));
  const cwd = path.resolve(wt, prefix);
  if (fs.existsSync(wt) && registered(top).has(safeReal(wt))) return { path: wt, branch, cwd };
  if (fs.existsSync(wt) && fs.readdirSync(wt).length > 0) {
    throw new RudderError(
      'WORKTREE_FAILED',
      `${wt} exists and is not a worktree of ${top}. Move it away, then send your message again.`,
      { conversationId, project: project.name },
    );
  }
  gitSync(['worktree', 'prune'], top);
  if (!gitSync(['rev-parse', '--verify', '--quiet', 'HEAD'], top).ok) {
    throw new RudderError(
      'WORKTREE_FAILED',
      `${top} has no commits yet, so there is nothing to branch from. Commit once, then send your message again.`,
      { conversationId, project: project.name },
    );
  }
  fs.mkdirSync(path.dirname(wt), { recursive: true });
  const exists = gitSync(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], top).ok;
  // A branch left by a removed worktree keeps the agent's commits: check it out again.
  const r = gitSync(exists ? ['worktree', 'add', wt, branch] : ['worktree', 'add', '-b', branch, wt, 'HEAD'], top);
  if (!r.ok)
    throw new RudderError('WORKTREE_FAILED', `git worktree add ${wt}: ${gitComplaint(r)}`, {
      conversationId,
      project: project.name,
    });
  return { path: wt, branch, cwd };
}

export interface WorktreeStatus {
  path: string;
  /** The branch checked out there now (the agent may have switched). */
  branch: string;
  /** The branch (or commit) checked out in the project itself, which ahead/behind compare with. */
  base: string;
  ahead: number;
  behind: number;
  /** `git status --porcelain` lines: uncommitted changes and untracked files. */
  changes: string[];
  /** Ignored files and folders (a .env, node_modules/): `git worktree remove` deletes them without a word. */
  ignored: string[];
}

/** `git status --porcelain --ignored`, split: changes and untracked files, and the ignored paths. */
async function statusOf(wt: string): Promise<{ changes: string[]; ignored: string[] }> {
  const lines = (await git(['status', '--porcelain', '--ignored'], wt)).stdout.split('\n').filter(Boolean);
  return {
    changes: lines.filter((l) => !l.startsWith('!! ')),
    ignored: lines.filter((l) => l.startsWith('!! ')).map((l) => l.slice(3)),
  };
}

export async function worktreeStatus(project: Project, wt: string): Promise<WorktreeStatus> {
  if (!fs.existsSync(wt))
    throw new RudderError('WORKTREE_FAILED', `${wt} does not exist any more; the next turn makes it again.`, {
      project: project.name,
    });
  const [branch, base, counts, status] = await Promise.all([
    git(['rev-parse', '--abbrev-ref', 'HEAD'], wt),
    git(['rev-parse', '--abbrev-ref', 'HEAD'], project.path),
    git(['rev-parse', 'HEAD'], project.path).then((h) =>
      h.ok ? git(['rev-list', '--left-right', '--count', `${h.stdout.trim()}...HEAD`], wt) : h,
    ),
    statusOf(wt),
  ]);
  const [behind, ahead] = counts.ok ? counts.stdout.trim().split(/\s+/).map(Number) : [0, 0];
  return {
    path: wt,
    branch: branch.stdout.trim() || '(unknown)',
    base: base.stdout.trim() || '(unknown)',
    ahead: ahead ?? 0,
    behind: behind ?? 0,
    changes: status.changes,
    ignored: status.ignored,
  };
}

export type RemoveResult = { removed: true } | { removed: false; changes: string[]; ignored: string[] };

/** Removes the worktree; refuses when it has uncommitted changes or ignored files unless forced. The branch is kept. */
export async function removeWorktree(project: Project, wt: string, force: boolean): Promise<RemoveResult> {
  const top = repoOf(project).top;
  if (!fs.existsSync(wt)) {
    await git(['worktree', 'prune'], top);
    return { removed: true };
  }
  const { changes, ignored } = await statusOf(wt);
  if ((changes.length || ignored.length) && !force) return { removed: false, changes, ignored };
  const r = await git(['worktree', 'remove', ...(force ? ['--force'] : []), wt], top);
  if (!r.ok)
    throw new RudderError('WORKTREE_FAILED', `git worktree remove ${wt}: ${gitComplaint(r)}`, {
      project: project.name,
    });
  return { removed: true };
}
