/**
 * The review of a conversation's work as the HTTP API and the page see it: the Changes view's
 * body, and the `review` event each action leaves in the conversation's history. Plain data that
 * imports only other plain data, so the page imports it too (through src/http/wire.ts).
 */
import type {
  ChangeSet,
  CommitResult,
  MergeResult,
  PullRequestResult,
  PushResult,
} from '../../projects/changes/types.js';

export type ReviewActionName = 'commit' | 'merge' | 'push' | 'pull-request' | 'discard';

/** GET /api/conversations/:id/changes */
export interface ChangesBody {
  /** The conversation's project. */
  project: string;
  changes: ChangeSet;
  /** A project without worktrees: its working tree's changes are shown, and no action is offered. */
  readOnly: boolean;
  /** A turn runs in this conversation: every action is refused until it ends. */
  busy: boolean;
  /** The review action running on this tree now, if any. */
  acting: ReviewActionName | null;
  /** Where a push of the branch goes, or why it cannot (no remote yet): the page says so instead of offering it. */
  push: { remote: string } | { unavailable: string };
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
