/**
 * What the agent changed in a worktree: the branch against its base (ahead/behind, the commits
 * since the merge base) and, apart from them, what is not committed (staged, unstaged,
 * untracked). Each file has its status, +/- counts and unified diff; a file with too many
 * changed lines, a diff too long, or one past the set's byte budget is collapsed with its counts
 * and fetched alone with fileDiff(). Read-only: no index refresh, no optional locks.
 */
import { RudderError } from '../../errors.js';
import { parseRawNumstat, type RawEntry, splitPatch, statusOf } from './parse.js';
import { EMPTY_TREE, headOf, resolveCommit, topOf } from './repo.js';
import { type GitRunner, ok } from './run.js';
import {
  type BaseInfo,
  type ChangeSet,
  DEFAULT_LIMITS,
  type FileChange,
  type FileDiff,
  type ReviewLimits,
  type Section,
  type SectionChanges,
} from './types.js';
import { insideTree, newFile } from './untracked.js';

export interface ChangesOptions {
  limits?: Partial<ReviewLimits>;
}

/** How many files past the budget are still fetched one by one (a single huge diff spent the shared run). */
const SINGLE_FETCHES = 20;

/** Options of every diff: no external tools, fixed prefixes and context, renames found. */
const DIFF = ['diff', '--no-ext-diff', '--no-textconv', '--no-relative', '-M', '--submodule=short'];
const PATCH = ['-U3', '--src-prefix=a/', '--dst-prefix=b/'];

const literal = (p: string) => `:(literal)${p}`;

/** Byte budget shared by a change set's inline diffs. */
interface Budget {
  left: number;
}

/** The diff arguments that select a section's two sides. */
function sides(section: Exclude<Section, 'untracked'>, mergeBase: string | undefined, head: string | null): string[] {
  if (section === 'committed') return [mergeBase!, 'HEAD'];
  if (section === 'staged') return ['--cached', head ?? EMPTY_TREE];
  return [];
}

function change(section: Section, e: RawEntry): FileChange {
  const f: FileChange = {
    section,
    path: e.path,
    status: statusOf(e.letter),
    binary: e.binary,
    added: e.added,
    deleted: e.deleted,
  };
  if (e.oldPath !== undefined && e.letter === 'R') f.oldPath = e.oldPath;
  if (e.similarity !== undefined && e.letter === 'R') f.similarity = e.similarity;
  const created = e.letter === 'A' || /^0+$/.test(e.oldMode);
  const removed = e.letter === 'D' || /^0+$/.test(e.newMode);
  if (e.oldMode !== e.newMode && !created && !removed) Object.assign(f, { oldMode: e.oldMode, newMode: e.newMode });
  if (created && e.newMode !== '100644') f.newMode = e.newMode;
  return f;
}

const lines = (f: FileChange) => (f.added === null || f.deleted === null ? null : f.added + f.deleted);

async function trackedSection(
  run: GitRunner,
  top: string,
  section: Exclude<Section, 'untracked'>,
  range: string[],
  limits: ReviewLimits,
  budget: Budget,
): Promise<SectionChanges> {
  const meta = await run.git([...DIFF, '--raw', '--numstat', '-z', '--no-abbrev', ...range], {
    cwd: top,
    read: true,
    maxBytes: limits.maxListBytes,
  });
  if (meta.code !== 0 && !meta.truncated) ok(meta, `git diff (${section})`);
  let entries = parseRawNumstat(meta.stdout);
  if (meta.truncated) entries = entries.slice(0, -1); // the last record may be cut
  const files = entries.slice(0, limits.maxFiles).map((e) => change(section, e));
  const omitted = entries.length - files.length + (meta.truncated ? 1 : 0);
  const wanted = files.filter((f) => {
    const n = lines(f);
    if (n !== null && n > limits.maxFileLines) {
      f.collapsed = { reason: 'lines', lines: n, bytes: null };
      return false;
    }
    return true;
  });
  if (!wanted.length || budget.left <= 0) {
    for (const f of wanted) f.collapsed = { reason: 'budget', lines: lines(f), bytes: null };
    return { files, omitted };
  }
  const spec = wanted.length === entries.length && !meta.truncated ? [] : ['--', ...wanted.flatMap(pathspec)];
  const patch = await run.git([...DIFF, ...PATCH, ...range, ...spec], {
    cwd: top,
    read: true,
    maxBytes: budget.left + limits.maxFileBytes,
  });
  if (patch.code !== 0 && !patch.truncated) ok(patch, `git diff (${section})`);
  const chunks = splitPatch(patch.stdout);
  if (patch.truncated) chunks.delete([...chunks.keys()].at(-1)!); // cut off mid-chunk
  let singles = 0;
  for (const f of wanted) {
    let chunk = chunks.get(f.path);
    if (chunk === undefined && budget.left > 0 && singles++ < SINGLE_FETCHES) {
      const one = await run.git([...DIFF, ...PATCH, ...range, '--', ...pathspec(f)], {
        cwd: top,
        read: true,
        maxBytes: Math.min(limits.maxFileBytes, budget.left) + 1,
      });
      if (!one.truncated) chunk = one.code === 0 ? one.stdout : undefined;
      else {
        f.collapsed = { reason: budget.left > limits.maxFileBytes ? 'bytes' : 'budget', lines: lines(f), bytes: null };
        continue;
      }
    }
    place(f, chunk, limits, budget);
  }
  return { files, omitted };
}

const pathspec = (f: FileChange) =>
  f.oldPath === undefined ? [literal(f.path)] : [literal(f.path), literal(f.oldPath)];

/** Puts a file's chunk inline when it fits its own bound and what is left of the budget; else collapses it. */
function place(f: FileChange, chunk: string | undefined, limits: ReviewLimits, budget: Budget): void {
  if (chunk === undefined) {
    f.collapsed = { reason: 'budget', lines: lines(f), bytes: null };
    return;
  }
  const bytes = Buffer.byteLength(chunk);
  if (bytes > limits.maxFileBytes) f.collapsed = { reason: 'bytes', lines: lines(f), bytes };
  else if (bytes > budget.left) f.collapsed = { reason: 'budget', lines: lines(f), bytes };
  else {
    f.diff = chunk;
    budget.left -= bytes;
  }
}

async function untrackedList(run: GitRunner, top: string, limits: ReviewLimits): Promise<string[]> {
  const r = await run.git(['ls-files', '--others', '--exclude-standard', '-z'], {
    cwd: top,
    read: true,
    maxBytes: limits.maxListBytes,
  });
  if (r.code !== 0 && !r.truncated) ok(r, 'git ls-files');
  const paths = r.stdout.split('\0').filter(Boolean);
  return r.truncated ? paths.slice(0, -1) : paths;
}

async function untrackedSection(
  run: GitRunner,
  top: string,
  limits: ReviewLimits,
  budget: Budget,
): Promise<SectionChanges> {
  const paths = await untrackedList(run, top, limits);
  const files: FileChange[] = [];
  for (const p of paths.slice(0, limits.maxFiles)) {
    const f: FileChange = { section: 'untracked', path: p, status: 'added', binary: false, added: null, deleted: 0 };
    files.push(f);
    if (p.endsWith('/')) {
      // A nested repository: git lists the directory, not its files.
      Object.assign(f, { path: p.slice(0, -1), directory: true, deleted: null });
      continue;
    }
    const n = newFile(top, p, Math.max(0, Math.min(limits.maxFileBytes, budget.left)));
    if (!n) continue;
    Object.assign(f, { binary: n.binary, added: n.binary ? null : n.lines, deleted: n.binary ? null : 0 });
    if (n.mode !== '100644') f.newMode = n.mode;
    if (!n.binary && n.lines !== null && n.lines > limits.maxFileLines)
      f.collapsed = { reason: 'lines', lines: n.lines, bytes: n.diffBytes };
    else if (n.diff === undefined) {
      const bytes = n.diffBytes ?? n.bytes;
      f.collapsed = { reason: bytes > limits.maxFileBytes ? 'bytes' : 'budget', lines: n.lines, bytes };
    } else place(f, n.diff, limits, budget);
  }
  return { files, omitted: paths.length - files.length };
}

async function baseInfo(run: GitRunner, top: string, base: string, head: string): Promise<BaseInfo> {
  const sha = await resolveCommit(run, top, base);
  const mb = await run.git(['merge-base', sha, head], { cwd: top, read: true });
  if (mb.code !== 0)
    throw new RudderError('REVIEW_BASE_UNKNOWN', `${base} and this branch share no history.`, { base });
  const counts = ok(
    await run.git(['rev-list', '--left-right', '--count', `${sha}...${head}`], { cwd: top, read: true }),
    'git rev-list',
  );
  const [behind = 0, ahead = 0] = counts.stdout.trim().split(/\s+/).map(Number);
  return { name: base, sha, mergeBase: mb.stdout.trim(), ahead, behind };
}

function totals(sections: ChangeSet['sections']): ChangeSet['totals'] {
  const all = Object.values(sections).flatMap((s) => s.files);
  return {
    files: new Set(all.map((f) => f.path)).size,
    added: all.reduce((n, f) => n + (f.added ?? 0), 0),
    deleted: all.reduce((n, f) => n + (f.deleted ?? 0), 0),
  };
}

async function collect(run: GitRunner, dir: string, base: string | undefined, o: ChangesOptions): Promise<ChangeSet> {
  const limits = { ...DEFAULT_LIMITS, ...o.limits };
  const top = await topOf(run, dir);
  const { head, branch } = await headOf(run, top);
  const info = base !== undefined && head ? await baseInfo(run, top, base, head) : undefined;
  if (base !== undefined && !head)
    throw new RudderError('REVIEW_BASE_UNKNOWN', `${top} has no commits yet, so there is nothing to compare.`);
  const budget: Budget = { left: limits.maxTotalBytes };
  // In order: what the branch committed, then what is staged, unstaged and new; the budget is spent in that order.
  const committed: SectionChanges = info
    ? await trackedSection(run, top, 'committed', sides('committed', info.mergeBase, head), limits, budget)
    : { files: [], omitted: 0 };
  const staged = await trackedSection(run, top, 'staged', sides('staged', undefined, head), limits, budget);
  const unstaged = await trackedSection(run, top, 'unstaged', sides('unstaged', undefined, head), limits, budget);
  const untracked = await untrackedSection(run, top, limits, budget);
  const sections = { committed, staged, unstaged, untracked };
  return { worktree: top, branch, head, ...(info ? { base: info } : {}), sections, totals: totals(sections) };
}

/** A worktree's changes: committed against the merge base with `base`, and uncommitted ones apart. */
export function changes(run: GitRunner, worktree: string, base: string, o: ChangesOptions = {}): Promise<ChangeSet> {
  return collect(run, worktree, base, o);
}

/** The read-only view of a project without worktrees: the working tree's changes against HEAD. */
export function workingChanges(run: GitRunner, dir: string, o: ChangesOptions = {}): Promise<ChangeSet> {
  return collect(run, dir, undefined, o);
}

export interface FileRef {
  section: Section;
  path: string;
  /** For a rename: the path before it, so git pairs the two sides. */
  oldPath?: string;
}

/** One file's whole diff in a section, up to ReviewLimits.maxFullDiffBytes (cut there and marked). */
export async function fileDiff(
  run: GitRunner,
  worktree: string,
  ref: FileRef,
  base?: string,
  o: ChangesOptions = {},
): Promise<FileDiff> {
  const limits = { ...DEFAULT_LIMITS, ...o.limits };
  const top = await topOf(run, worktree);
  const unknown = () =>
    new RudderError('REVIEW_FILE_UNKNOWN', `${ref.path} has no ${ref.section} change here.`, { path: ref.path });
  if (!insideTree(top, ref.path) || (ref.oldPath !== undefined && !insideTree(top, ref.oldPath))) throw unknown();
  if (ref.section === 'untracked') {
    // Only a path git itself lists as untracked is read: never an ignored file, never one outside the tree.
    const listed = await run.git(['ls-files', '--others', '--exclude-standard', '-z', '--', literal(ref.path)], {
      cwd: top,
      read: true,
    });
    if (!listed.stdout.split('\0').includes(ref.path)) throw unknown();
    const n = newFile(top, ref.path, limits.maxFullDiffBytes, true);
    if (!n?.diff) throw unknown();
    return { section: ref.section, path: ref.path, diff: n.diff, bytes: n.diffBytes ?? 0, truncated: n.truncated };
  }
  const { head } = await headOf(run, top);
  let mergeBase: string | undefined;
  if (ref.section === 'committed') {
    if (base === undefined || !head) throw unknown();
    mergeBase = (await baseInfo(run, top, base, head)).mergeBase;
  }
  const spec = ref.oldPath === undefined ? [literal(ref.path)] : [literal(ref.path), literal(ref.oldPath)];
  const r = await run.git([...DIFF, ...PATCH, ...sides(ref.section, mergeBase, head), '--', ...spec], {
    cwd: top,
    read: true,
    maxBytes: limits.maxFullDiffBytes,
  });
  if (r.code !== 0 && !r.truncated) ok(r, 'git diff');
  const diff = r.truncated ? r.stdout.slice(0, r.stdout.lastIndexOf('\n') + 1) : r.stdout;
  if (!diff) throw unknown();
  return { section: ref.section, path: ref.path, diff, bytes: Buffer.byteLength(diff), truncated: r.truncated };
}
