/**
 * The review of a conversation whose project lives here, as the front asks for it (a review query):
 * its Changes view, one file's diff and every action, run by this machine's git in the
 * conversation's tree here, through the same TreeActions as the front's own projects. The busy
 * guard is kept here, where the turns run: an action is refused while a turn of the conversation
 * runs, starts or waits on this node (the runner says), and a turn that arrives while an action
 * runs waits for it (the runner asks reviewing()), then starts when the action ends.
 */
import fs from 'node:fs';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { ConversationReview, TreeActions } from '../../projects/changes/tree-actions.js';
import type { Projects } from '../../projects/service.js';
import { errorToWire, type QueryAnswer, type ReviewQuery, type ReviewResults } from '../wire.js';
import { ownProject } from './own-project.js';

export interface NodeReviewsDeps {
  node: string;
  actions: TreeActions;
  projects: Projects;
  /** A turn of the conversation runs, starts or waits here (NodeRunner.busy). */
  busy(conversationId: string): boolean;
  /** An action on the conversation's tree ended: a turn that waited for it starts (NodeRunner.reviewed). */
  released(conversationId: string): void;
  log: Logger;
}

export class NodeReviews {
  constructor(private readonly d: NodeReviewsDeps) {}

  /** The answer to one review query; never rejects (a failure is the answer's error, with its code). */
  async answer(q: ReviewQuery): Promise<QueryAnswer> {
    try {
      return { ok: true, review: await this.run(q) };
    } catch (err) {
      this.d.log.info(
        { conversationId: q.conversationId, step: q.step, err: (err as Error).message },
        'review refused',
      );
      return { ok: false, error: errorToWire(err) };
    }
  }

  /** The review action running on the conversation's tree here, if any. */
  reviewing(conversationId: string): string | undefined {
    const name = this.d.projects.peek(conversationId).name;
    const dir = this.d.projects.worktreeOf(conversationId, name)?.worktree;
    return dir ? this.d.actions.acting(dir) : undefined;
  }

  private async run(q: ReviewQuery): Promise<ReviewResults[ReviewQuery['step']]> {
    const r = this.review(q);
    const acted = <T>(p: Promise<T>) => p.finally(() => this.d.released(q.conversationId));
    switch (q.step) {
      case 'view':
        return r.view();
      case 'file-diff':
        return r.fileDiff(q.ref);
      case 'base-change':
        return r.baseChange(q.files);
      case 'pull-request-available':
        return r.pullRequestAvailable();
      case 'discard-preview':
        return r.discardPreview();
      case 'commit':
        return acted(r.commit(q.message));
      case 'merge':
        return acted(r.merge());
      case 'push':
        return acted(r.push({ which: q.which }));
      case 'pull-request':
        return acted(r.openPullRequest({ title: q.title, body: q.body, draft: q.draft }));
      case 'discard':
        return acted(r.discard(q.confirm));
    }
  }

  /**
   * The conversation's tree here, in the project the front names (never the node's default): its worktree, or the
   * project's directory, read-only, when the project has no worktrees. The directory comes from this node's config.
   */
  private review(q: ReviewQuery): ConversationReview {
    const { conversationId } = q;
    const p = ownProject(this.d.projects, this.d.node, q.project);
    const wt = p.worktrees ? this.d.projects.worktreeOf(conversationId, p.name)?.worktree : p.path;
    if (!wt || !fs.existsSync(wt)) throw new RudderError('REVIEW_NO_WORKTREE', undefined, { conversationId });
    return this.d.actions.for({
      conversationId,
      dir: wt,
      projectDir: p.path,
      worktree: !!p.worktrees,
      busy: () => this.d.busy(conversationId),
    });
  }
}
