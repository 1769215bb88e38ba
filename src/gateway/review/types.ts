/**
 * The review of a conversation's work as the HTTP API and the page see it: the Changes view's
 * body, and the `review` event each action leaves in the conversation's history. Plain data that
 * imports only other plain data, so the page imports it too (through src/http/wire.ts).
 */
import type {
  CommitResult,
  MergeResult,
  PullRequestResult,
  PushResult,
  ReviewAction,
  TreeView,
} from '../../projects/changes/types.js';

export type ReviewActionName = ReviewAction;

/** GET /api/conversations/:id/changes: the tree's view, read where git runs (here, or on the project's node). */
export interface ChangesBody extends TreeView {
  /** The conversation's project. */
  project: string;
}

/** GET /api/conversations/:id/changes/pull-request: whether one can be opened (gh installed and logged in). */
export type PullRequestAvailability =
  | { available: true }
  | { available: false; code: 'REVIEW_GH_MISSING' | 'REVIEW_GH_LOGGED_OUT'; message: string };

/** What a discard removed, as its history entry keeps it (counts and the first names). */
export interface DiscardSummary {
  removed: number;
  remaining: number;
  files: string[];
}

/** A review action done, or one that failed, in the conversation's history (the `review` event). */
export interface ReviewEventData {
  action: ReviewActionName;
  ok: boolean;
  /** Who asked: "web:owner", or a chat sender such as "telegram:111 (Ann)". */
  by: string;
  /** One line for the timeline, e.g. "Committed 3 files on rudder/web/c-1 (3f2a9c0): Fix the parser". */
  summary: string;
  error?: { code: string; message: string };
  result?: CommitResult | MergeResult | PushResult | PullRequestResult | DiscardSummary;
}

/** A review event as a history page lists it: its id in the event log and when it happened. */
export interface ReviewRecordView extends ReviewEventData {
  id: number;
  at: number;
}
