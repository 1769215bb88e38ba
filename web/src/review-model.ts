/** The Changes view's state as the one store keeps it (app-store.ts), apart from what changes it (review.ts). */
import type {
  ChangesBody,
  DiscardPreview,
  FileChange,
  FileDiff,
  LineCommentBody,
  PullRequestAvailability,
} from './types.js';

/** A comment written on the page and not sent yet. */
export interface DraftComment extends LineCommentBody {
  key: string;
}

export type PageAction =
  | 'commit'
  | 'propose'
  | 'merge'
  | 'push'
  | 'push-base'
  | 'pull-request'
  | 'discard'
  | 'comments';

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
  outcome?: { action: PageAction; ok: boolean; text: string; files?: string[] };
  pr?: PullRequestAvailability;
  /** The discard's confirmation, open: the files it would remove and its token. */
  discard?: DiscardPreview;
  /** The message that asked the agent for a commit message: its reply is offered for the box. */
  proposal?: string;
}

export const fileKey = (f: Pick<FileChange, 'section' | 'path'>) => `${f.section}:${f.path}`;
