/**
 * What the review of a conversation's worktree returns: its changes (committed apart from
 * uncommitted), and the results of commit, merge, push, pull request and discard. These are
 * plain data, so the HTTP routes can send them as JSON and the page can import them as they are.
 */

/** Where a change sits: committed on the branch since the merge base, or not committed yet. */
export type Section = 'committed' | 'staged' | 'unstaged' | 'untracked';

/** Every section, in the order a person reads them. */
export const SECTIONS: readonly Section[] = ['committed', 'staged', 'unstaged', 'untracked'];

/** The kind of change; `binary` is a separate flag, since a binary file is also added, modified, ... */
export type FileStatus = 'added' | 'modified' | 'deleted' | 'renamed' | 'unmerged';

/** Why a file's diff is not inline: too many changed lines, too long, or the set's byte budget ran out. */
export type CollapseReason = 'lines' | 'bytes' | 'budget';

export interface FileChange {
  section: Section;
  /** Path from the top of the worktree, as git names it (no quoting). */
  path: string;
  /** The path before a rename. */
  oldPath?: string;
  status: FileStatus;
  binary: boolean;
  /** Lines added and deleted (git's numstat); null for a binary file or one too large to count. */
  added: number | null;
  deleted: number | null;
  /** Similarity of a rename, in percent. */
  similarity?: number;
  /** File modes when they changed (100644, 100755, 120000 a symlink, 160000 a submodule). */
  oldMode?: string;
  newMode?: string;
  /** An untracked directory git does not descend into (a nested repository). */
  directory?: boolean;
  /** The file's unified diff (git's `diff --git` chunk), unless collapsed. */
  diff?: string;
  /** Set when the diff is left out: fetch it with fileDiff(). */
  collapsed?: { reason: CollapseReason; lines: number | null; bytes: number | null };
}

export interface SectionChanges {
  files: FileChange[];
  /** Files beyond the listing bound (ReviewLimits.maxFiles), counted but not listed. */
  omitted: number;
}

export interface BaseInfo {
  /** The base as given (a branch name, usually the one checked out in the project). */
  name: string;
  sha: string;
  mergeBase: string;
  /** Commits on the branch not on the base, and on the base not on the branch. */
  ahead: number;
  behind: number;
}

export interface ChangeSet {
  /** The worktree's top directory. */
  worktree: string;
  /** The branch checked out there, or null on a detached HEAD. */
  branch: string | null;
  /** HEAD's commit, or null in a repository without commits. */
  head: string | null;
  /** Absent in the read-only view of a project without worktrees (changes against HEAD only). */
  base?: BaseInfo;
  sections: Record<Section, SectionChanges>;
  totals: { files: number; added: number; deleted: number };
}

/** Bounds on what a review reads; every git output is cut at a bound and marked, never unbounded. */
export interface ReviewLimits {
  /** Files listed per section. */
  maxFiles: number;
  /** A file with more changed lines (added + deleted) is collapsed. */
  maxFileLines: number;
  /** A file whose diff is longer than this (bytes) is collapsed. */
  maxFileBytes: number;
  /** All inline diffs of a change set together (bytes); files after it is spent are collapsed. */
  maxTotalBytes: number;
  /** One file's diff fetched on demand (bytes); beyond it the diff is cut and marked truncated. */
  maxFullDiffBytes: number;
  /** File lists and status outputs (bytes). */
  maxListBytes: number;
}

export const DEFAULT_LIMITS: ReviewLimits = {
  maxFiles: 500,
  maxFileLines: 1500,
  maxFileBytes: 128 * 1024,
  maxTotalBytes: 2 * 1024 * 1024,
  maxFullDiffBytes: 8 * 1024 * 1024,
  maxListBytes: 4 * 1024 * 1024,
};

/** One file's whole diff, fetched on demand. */
export interface FileDiff {
  section: Section;
  path: string;
  diff: string;
  bytes: number;
  /** The diff was cut at ReviewLimits.maxFullDiffBytes. */
  truncated: boolean;
}

export interface CommitResult {
  branch: string;
  sha: string;
  /** The message's first line. */
  summary: string;
  /** Files in the commit. */
  files: number;
}

/** A merge that happened, or one that stopped on a conflict and was undone. */
export type MergeResult =
  | { kind: 'up-to-date'; branch: string; base: string; head: string }
  | { kind: 'fast-forward' | 'merge-commit'; branch: string; base: string; from: string; to: string; commits: number }
  | {
      kind: 'conflict';
      branch: string;
      base: string;
      /** The files both sides changed in ways git could not join. */
      files: string[];
      /** The base's checkout is back where it was (checked after the abort); the worktree was never touched. */
      clean: true;
    };

export interface PushResult {
  remote: string;
  /** The remote's URL with any credentials in it removed. */
  url: string;
  branch: string;
  kind: 'created' | 'updated' | 'up-to-date';
  /** The commit the remote branch is at now. */
  head: string;
}

/** Whether pull requests can be opened: the GitHub CLI installed and logged in. */
export type GithubCli =
  | { available: true; bin: string }
  | { available: false; code: 'REVIEW_GH_MISSING' | 'REVIEW_GH_LOGGED_OUT'; message: string };

export type PullRequestResult =
  | { opened: true; url: string; branch: string; base: string }
  | { opened: false; code: 'REVIEW_GH_MISSING' | 'REVIEW_GH_LOGGED_OUT'; message: string };

/** An uncommitted path as `git status --ignored` names it. */
export interface DiscardEntry {
  path: string;
  /** The path before a staged rename. */
  oldPath?: string;
  /** What discarding it undoes, staged or not: a new file staged is added, an edit modified, and so on. */
  state: 'modified' | 'added' | 'deleted' | 'renamed' | 'untracked' | 'ignored' | 'unmerged';
  /** git names a whole directory (an ignored one such as node_modules/, or a nested repository). */
  directory: boolean;
}

export interface DiscardPreview {
  worktree: string;
  files: DiscardEntry[];
  /** Pass it back to discard(): it names exactly this list, so a list that changed since is refused. */
  token: string;
}

export interface DiscardResult {
  removed: DiscardEntry[];
  /** What is still there afterwards (nested repositories git clean keeps); empty when all went. */
  remaining: DiscardEntry[];
}

/** What the base changed in some files since the branch left it (git diff <branch>...<base>), cut to a bound. */
export interface BaseChange {
  branch: string;
  base: string;
  diff: string;
  cut: boolean;
}

/** The actions that change a tree (each refused while a turn runs there). */
export type ReviewAction = 'commit' | 'merge' | 'push' | 'pull-request' | 'discard';

/** What the Changes view shows of one conversation's tree, wherever git runs (here, or on the project's node). */
export interface TreeView {
  changes: ChangeSet;
  /** A project without worktrees: its working tree's changes are shown, and no action is offered. */
  readOnly: boolean;
  /** A turn runs in this conversation: every action is refused until it ends. */
  busy: boolean;
  /** The review action running on this tree now, if any. */
  acting: ReviewAction | null;
  /** Where a push of the branch goes, or why it cannot (no remote yet): the page says so instead of offering it. */
  push: { remote: string } | { unavailable: string };
}
