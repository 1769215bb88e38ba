/**
 * Reviewing a conversation's work, as the page and the chat commands ask for it: its changes, one
 * file's diff, line comments made into one message, and the actions (commit, merge, push, pull
 * request, discard). The tree is the conversation's worktree, or, read-only, the project's own
 * directory when the project has none; for a project on a node, the node's tree, each step run there
 * by its git (nodes/front/remote-review.ts), the busy guard kept there. Actions run through
 * TreeActions (projects/changes), which refuses while a turn runs there and claims the tree in the
 * same synchronous step; the lane asks it before it starts a turn, so neither can start under the
 * other. Each action that ran, done or failed, is a `review` event in the conversation's history; its end lets the
 * lanes start what waited for it.
 */
import { isRudderError, RudderError } from '../../errors.js';
import { type RemoteActions, RemoteReview, type ReviewLink } from '../../nodes/front/remote-review.js';
import type { Logger } from '../../ops/logger.js';
import { commentsMessage, type LineComment } from '../../projects/changes/index.js';
import type { TreeActions, TreeReview } from '../../projects/changes/tree-actions.js';
import type { MergeResult, PullRequestResult, PushResult } from '../../projects/changes/types.js';
import type { Projects } from '../../projects/service.js';
import type { EventBus } from '../bus.js';
import type { Conversations } from '../conversations/conversations.js';
import { resolveConflictText } from './resolve.js';
import {
  commitSummary,
  discardSummary,
  discardText,
  failureSummary,
  mergeSummary,
  pullRequestSummary,
  pushSummary,
} from './summary.js';
import type { ChangesBody, PullRequestAvailability, ReviewActionName, ReviewEventData } from './types.js';

export interface ReviewsDeps {
  actions: TreeActions;
  projects: Projects;
  conversations: Conversations;
  bus: EventBus;
  log: Logger;
  /** The front's link to its nodes (nodes.*): a node's project is reviewed there (without it: unreachable). */
  nodes?: ReviewLink;
  /** The actions sent to nodes and not yet answered (the lanes ask it too). */
  remoteActions: RemoteActions;
  /** A pull request was opened from the conversation's branch: it is the conversation's (the shepherd's owners). */
  pullRequestOpened?(conversationId: string, result: PullRequestResult): void;
}

/** A line comment as the page sends it: the file's path before a rename lets git pair the two sides. */
export type PageComment = LineComment & { oldPath?: string };

/** A quoted line longer than this is cut: a minified file's one line must not fill the agent's message. */
const QUOTED_LINE_CHARS = 400;

/** The diff with each line cut at QUOTED_LINE_CHARS (numbering unchanged: lines are cut, never dropped). */
function cutLines(diff: string): string {
  return diff
    .split('\n')
    .map((l) => (l.length > QUOTED_LINE_CHARS ? `${l.slice(0, QUOTED_LINE_CHARS)} …` : l))
    .join('\n');
}

/** Refusals that changed nothing and that the person sees at once: nothing to record. */
const NOT_STARTED = new Set([
  'REVIEW_BUSY',
  'REVIEW_IN_PROGRESS',
  'REVIEW_READ_ONLY',
  'REVIEW_NO_WORKTREE',
  'REVIEW_EMPTY_MESSAGE',
  'REVIEW_NOTHING_TO_COMMIT',
  'REVIEW_CONFIRM_STALE',
]);

/** What an action's history entry says, from its result. */
type Describe<T> = (r: T) => Pick<ReviewEventData, 'ok' | 'summary' | 'result'>;

export class Reviews {
  constructor(private readonly d: ReviewsDeps) {}

  /** The conversation's review: REVIEW_NO_WORKTREE before its first turn made one; on its node for a node's project. */
  of(conversationId: string): TreeReview {
    const busy = () => this.d.conversations.peek(conversationId)?.busy() ?? false;
    const project = this.d.projects.peek(conversationId);
    if (project.node) {
      const target = { conversationId, node: project.node, project: project.name, busy };
      return new RemoteReview(this.d.nodes, this.d.remoteActions, target);
    }
    const t = this.d.projects.workTree(conversationId);
    if (!t) throw new RudderError('REVIEW_NO_WORKTREE', undefined, { conversationId });
    return this.d.actions.for({ conversationId, dir: t.dir, projectDir: t.project.path, worktree: t.worktree, busy });
  }

  /** The branch of the conversation's worktree, as it was made (null without one). */
  branchOf(conversationId: string): string | null {
    return this.d.projects.worktreeOf(conversationId, this.d.projects.peek(conversationId).name)?.branch ?? null;
  }

  async changes(conversationId: string): Promise<ChangesBody> {
    const view = await this.of(conversationId).view();
    return { project: this.d.projects.peek(conversationId).name, ...view };
  }

  /** The message that asks the agent to resolve a merge's conflict: the files, and what the base changed in them. */
  async resolveText(conversationId: string, files: string[]): Promise<string> {
    return resolveConflictText({ files, ...(await this.of(conversationId).baseChange(files)) });
  }

  /**
   * The comments as one message for the agent, each quoting its lines from the file's diff as git shows it now.
   * A comment on a file that has no diff (a path outside the tree, or one the diff does not have) is refused with
   * REVIEW_FILE_UNKNOWN, as the file route refuses it, and none of the batch is sent.
   */
  async commentsText(conversationId: string, comments: PageComment[]): Promise<string> {
    const review = this.of(conversationId);
    const key = (c: PageComment) => `${c.section}\0${c.path}`;
    const diffs = new Map<string, string>();
    for (const c of comments) {
      if (diffs.has(key(c))) continue;
      const ref = { section: c.section, path: c.path, ...(c.oldPath ? { oldPath: c.oldPath } : {}) };
      diffs.set(key(c), cutLines((await review.fileDiff(ref)).diff));
    }
    return commentsMessage(comments, (c) => diffs.get(key(c)));
  }

  commit(conversationId: string, message: string, by: string) {
    return this.act(
      conversationId,
      'commit',
      by,
      (r) => r.commit(message),
      (c) => ({
        ok: true,
        summary: commitSummary(c),
        result: c,
      }),
    );
  }

  merge(conversationId: string, by: string): Promise<MergeResult> {
    return this.act(
      conversationId,
      'merge',
      by,
      (r) => r.merge(),
      (m) => ({
        ok: m.kind !== 'conflict',
        summary: mergeSummary(m),
        result: m,
      }),
    );
  }

  push(conversationId: string, by: string, which: 'branch' | 'base' = 'branch'): Promise<PushResult> {
    return this.act(
      conversationId,
      'push',
      by,
      (r) => r.push({ which }),
      (p) => ({
        ok: true,
        summary: pushSummary(p),
        result: p,
      }),
    );
  }

  async pullRequestAvailable(conversationId: string): Promise<PullRequestAvailability> {
    const gh = await this.of(conversationId).pullRequestAvailable();
    return gh.available ? { available: true } : { available: false, code: gh.code, message: gh.message };
  }

  /** Pushes the branch, then opens a pull request into the base; says what is missing when gh is not there. */
  async openPullRequest(
    conversationId: string,
    by: string,
    o: { title?: string; body?: string; draft?: boolean } = {},
  ): Promise<PullRequestResult> {
    const gh = await this.pullRequestAvailable(conversationId);
    if (!gh.available) return { opened: false, code: gh.code, message: gh.message };
    await this.push(conversationId, by);
    return this.act(
      conversationId,
      'pull-request',
      by,
      async (r) => {
        const opened = await r.openPullRequest(o);
        this.d.pullRequestOpened?.(conversationId, opened);
        return opened;
      },
      (p) => ({
        ok: p.opened,
        summary: pullRequestSummary(p),
        result: p,
      }),
    );
  }

  discardPreview(conversationId: string) {
    return this.of(conversationId).discardPreview();
  }

  async discard(conversationId: string, confirm: string, by: string) {
    const removed = await this.act(
      conversationId,
      'discard',
      by,
      (r) => r.discard(confirm),
      (x) => {
        const s = discardSummary(x);
        return { ok: true, summary: discardText(s), result: s };
      },
    );
    return removed;
  }

  /**
   * Runs one action and records it (done, or failed once it started); then every lane that waited
   * for it may start its turn.
   */
  private async act<T>(
    conversationId: string,
    action: ReviewActionName,
    by: string,
    run: (r: TreeReview) => Promise<T>,
    describe: Describe<T>,
  ): Promise<T> {
    let result: T;
    try {
      result = await run(this.of(conversationId));
    } catch (err) {
      if (!isRudderError(err) || !NOT_STARTED.has(err.code)) {
        const error = isRudderError(err)
          ? { code: err.code, message: err.message }
          : { code: 'REVIEW_GIT_FAILED', message: (err as Error)?.message ?? String(err) };
        this.d.log.warn({ conversationId, action, code: error.code, err: error.message }, 'review action failed');
        this.record(conversationId, { action, ok: false, by, summary: failureSummary(action, error.message), error });
      }
      this.released();
      throw err;
    }
    const described = describe(result);
    this.d.log.info({ conversationId, action, ok: described.ok, by }, described.summary);
    this.record(conversationId, { action, by, ...described });
    this.released();
    return result;
  }

  private record(conversationId: string, data: ReviewEventData): void {
    this.d.bus.emit(conversationId, 'review', null, data);
  }

  /** An action ended: the lanes start what waited for it (a lane with nothing waiting does nothing). */
  private released(): void {
    for (const lane of this.d.conversations.lanes()) lane.pump();
  }
}
