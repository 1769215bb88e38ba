/** The Changes view's state as the one store keeps it (app-store.ts), apart from what changes it (review.ts). */
import type {
  ChangesBody,
  DiscardPreview,
  FileChange,
  FileDiff,
  LineCommentBody,
  PullRequestAvailability,
  ReviewRecordView,
} from './types.js';

/** A comment written on the page and not sent yet. */
export interface DraftComment extends LineCommentBody {
  key: string;
}

export type PageAction =
  | 'commit'
  | 'propose'
  | 'merge'
  | 'resolve'
  | 'push'
  | 'push-base'
  | 'pull-request'
  | 'discard'
  | 'comments';

/** What the last action came to; it shows by its action until the changes are no longer those it saw. */
export interface Outcome {
  action: PageAction;
  ok: boolean;
  text: string;
  files?: string[];
  /** The changes as the first reload after the action found them: a later reload that finds others drops it. */
  seen?: string;
}

export interface ChangesState {
  id: string;
  /** Shown in place of the timeline (kept while hidden, so unsent comments stay). */
  open: boolean;
  loading: boolean;
  body?: ChangesBody;
  error?: { code: string; message: string };
  /** Whole diffs of collapsed files, by fileKey. */
  full: Record<string, FileDiff | 'loading' | { error: string }>;
  comments: DraftComment[];
  /** The action this page runs now. */
  acting?: PageAction;
  /** What the last action came to. */
  outcome?: Outcome;
  /** The merge's confirmation is open. */
  confirmMerge?: boolean;
  pr?: PullRequestAvailability;
  /** The discard's confirmation, open: the files it would remove and its token. */
  discard?: DiscardPreview;
  /** The message that asked the agent for a commit message: its reply is offered for the box. */
  proposal?: string;
}

export const fileKey = (f: Pick<FileChange, 'section' | 'path'>) => `${f.section}:${f.path}`;

/** The changes in one string: when it differs, what an outcome said is no longer current. */
export function fingerprint(body: ChangesBody): string {
  const set = body.changes;
  const files = Object.values(set.sections).flatMap((s) =>
    s.files.map((f) => `${f.section}:${f.path}:${f.added}:${f.deleted}`),
  );
  return JSON.stringify([set.base?.ahead, set.base?.behind, files]);
}

/** The conversation's newest merge from its history (only successful ones when `ok`), if any. */
export function lastMerge(reviews: Map<number, ReviewRecordView>, ok?: boolean): ReviewRecordView | undefined {
  let last: ReviewRecordView | undefined;
  for (const r of reviews.values()) if (r.action === 'merge' && (!ok || r.ok) && (!last || r.at > last.at)) last = r;
  return last;
}

const UNCOMMITTED = ['staged', 'unstaged', 'untracked'] as const;

/** How many files are not committed yet (staged, not staged, new). */
export function uncommittedFiles(body: ChangesBody): number {
  const s = body.changes.sections;
  return UNCOMMITTED.reduce((n, k) => n + s[k].files.length + s[k].omitted, 0);
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The summary under the branch: what is committed, behind, not committed (the +/− counts follow it). */
export function countsText(body: ChangesBody): string {
  const set = body.changes;
  const t = set.totals;
  const base = set.base;
  const open = uncommittedFiles(body);
  const where = [
    base?.ahead ? `${plural(base.ahead, 'commit')} ahead of ${base.name}` : '',
    base?.behind ? `${base.behind} behind` : '',
    open ? `${plural(open, 'file')} not committed` : '',
  ].filter(Boolean);
  // Everything uncommitted: the file count is said once.
  const files = open === t.files ? '' : `${plural(t.files, 'file')} changed`;
  return [where.join(', '), files].filter(Boolean).join(' · ') || (base ? `even with ${base.name}` : 'no changes');
}
