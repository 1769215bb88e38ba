/**
 * The review of a conversation whose project lives on a node, as the front's Reviews calls it: each
 * step is a review query to that node (request/reply, nothing durable), run there by its git in its
 * tree of the conversation (nodes/node/review.ts), where the busy guard is kept. The front adds what
 * it knows first, as for a local tree: a turn its lane runs (perhaps not yet at the node) refuses an
 * action here, and an action it sent holds its lane's next turn (RemoteActions, which the lane asks).
 * A lost node is said at once, with what to do, without asking it.
 */
import { RudderError } from '../../errors.js';
import type { FileRef } from '../../projects/changes/changes.js';
import type { TreeReview } from '../../projects/changes/tree-actions.js';
import type { ReviewAction, TreeView } from '../../projects/changes/types.js';
import {
  type Query,
  type QueryAnswer,
  type ReviewQuery,
  type ReviewResults,
  type ReviewStep,
  reviewResultOf,
} from '../wire.js';
import { type Reach, reachText } from './remote-launch.js';

/** A read runs several git commands (each bounded at a minute); an action's own are bounded longer (a push 3 min). */
const READ_TIMEOUT_MS = 120_000;
const ACTION_TIMEOUT_MS = 300_000;

/** What a remote review needs of the front's link to its nodes. */
export interface ReviewLink {
  reach(node: string): Reach;
  query(node: string, q: Query, timeoutMs?: number): Promise<QueryAnswer>;
}

/**
 * The review actions the front sent to a node and awaits, per conversation: the lane asks it before it starts a
 * turn (as it asks TreeActions for a local tree), and each action's end lets it go on.
 */
export class RemoteActions {
  private readonly running = new Map<string, ReviewAction>();

  acting(conversationId: string): ReviewAction | undefined {
    return this.running.get(conversationId);
  }

  /** Claims the conversation in the same synchronous step as the lane's check; the node refuses a second one. */
  async run<T>(conversationId: string, action: ReviewAction, fn: () => Promise<T>): Promise<T> {
    const held = this.running.get(conversationId);
    if (held) throw new RudderError('REVIEW_IN_PROGRESS', `(${held} is running.)`, { conversationId, action });
    this.running.set(conversationId, action);
    try {
      return await fn();
    } finally {
      this.running.delete(conversationId);
    }
  }
}

export interface RemoteReviewTarget {
  conversationId: string;
  node: string;
  project: string;
  /** The front's lane runs a turn of this conversation. */
  busy(): boolean;
}

export class RemoteReview implements TreeReview {
  constructor(
    /** Undefined without a nodes section: the node cannot be asked, and is said to be unreachable. */
    private readonly link: ReviewLink | undefined,
    private readonly actions: RemoteActions,
    private readonly t: RemoteReviewTarget,
  ) {}

  async view(): Promise<TreeView> {
    const v = await this.ask({ step: 'view' });
    return { ...v, busy: v.busy || this.t.busy() };
  }

  fileDiff(ref: FileRef) {
    return this.ask({ step: 'file-diff', ref });
  }

  baseChange(files: string[]) {
    return this.ask({ step: 'base-change', files });
  }

  pullRequestAvailable() {
    return this.ask({ step: 'pull-request-available' });
  }

  discardPreview() {
    return this.ask({ step: 'discard-preview' });
  }

  commit(message: string) {
    return this.act('commit', { step: 'commit', message });
  }

  merge() {
    return this.act('merge', { step: 'merge' });
  }

  push(o: { which?: 'branch' | 'base' } = {}) {
    return this.act('push', { step: 'push', which: o.which ?? 'branch' });
  }

  openPullRequest(o: { title?: string; body?: string; draft?: boolean } = {}) {
    return this.act('pull-request', { step: 'pull-request', ...o });
  }

  discard(confirm: string) {
    return this.act('discard', { step: 'discard', confirm });
  }

  /** An action: refused here while the front's lane runs a turn, else by the node's own guard. */
  private act<S extends ReviewStep>(action: ReviewAction, step: S): Promise<ReviewResults[S['step']]> {
    const { conversationId } = this.t;
    if (this.t.busy()) return Promise.reject(new RudderError('REVIEW_BUSY', undefined, { conversationId, action }));
    return this.actions.run(conversationId, action, () => this.ask(step, ACTION_TIMEOUT_MS));
  }

  private async ask<S extends ReviewStep>(step: S, timeoutMs = READ_TIMEOUT_MS): Promise<ReviewResults[S['step']]> {
    const { conversationId, node, project } = this.t;
    const r = this.link?.reach(node) ?? { reachable: false, lastSeenAt: undefined };
    if (!this.link || !r.reachable)
      throw new RudderError(
        'AGENT_UNREACHABLE',
        `This conversation's project ${project} lives on node ${reachText(node, r)}, which cannot be reached, so ` +
          'its changes cannot be read or changed now. Start `rudder node` on that machine (/nodes shows it), ' +
          'then try again.',
        { conversationId, node },
      );
    const q = { type: 'review', conversationId, project, ...step } as ReviewQuery;
    return reviewResultOf<S['step']>(await this.link.query(node, q, timeoutMs), step.step);
  }
}
