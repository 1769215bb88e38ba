/**
 * Which tree a review action runs on now, and one conversation's review as the gateway calls it.
 * Reads (changes, one file's diff, the discard list) run any time. Actions (commit, merge, push,
 * pull request, discard) refuse while a turn runs in that worktree (the busy() callback) and while
 * another action runs on the same tree (the base's checkout counts for a merge); the check and the
 * claim happen in one synchronous step, so two actions cannot both pass it. A turn that wants to
 * start while an action runs asks acting() first.
 */
import fs from 'node:fs';
import { isRudderError, RudderError } from '../../errors.js';
import { type ChangesOptions, changes, type FileRef, fileDiff, workingChanges } from './changes.js';
import { commit } from './commit.js';
import { discard, discardPreview } from './discard.js';
import { type MergeOptions, merge } from './merge.js';
import { githubCli, openPullRequest, type PullRequestOptions } from './pull-request.js';
import { push, remoteFor } from './push.js';
import { baseBranchOf } from './repo.js';
import type { GitRunner } from './run.js';
import type {
  BaseChange,
  ChangeSet,
  CommitResult,
  DiscardPreview,
  DiscardResult,
  FileDiff,
  GithubCli,
  MergeResult,
  PullRequestResult,
  PushResult,
  ReviewAction,
  ReviewLimits,
  TreeView,
} from './types.js';

/** The base's change sent to the agent with a conflict: enough to see what it did, not a whole rewrite. */
const BASE_CHANGE_BYTES = 64 * 1024;

/** What happened, for the conversation's history: the action, and its result or its error's code. */
export interface ReviewRecord {
  conversationId: string;
  action: ReviewAction;
  at: number;
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string };
}

export interface TreeActionsOptions {
  run: GitRunner;
  limits?: Partial<ReviewLimits>;
  /** Called after every action, done or refused (not for a busy refusal, which never started). */
  record?(r: ReviewRecord): void;
  /** The environment gh runs with (its PATH and token). */
  ghEnv?: NodeJS.ProcessEnv;
}

export interface ReviewTarget {
  conversationId: string;
  /** The conversation's worktree, or the project's directory when the project has no worktrees. */
  dir: string;
  /** The project's own checkout: the branch checked out there is the base. */
  projectDir: string;
  /** False for a project without worktrees: its changes are shown, every action refused. */
  worktree: boolean;
  /** A turn runs (or is starting) in this conversation. */
  busy(): boolean;
}

const real = (p: string) => {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
};

export class TreeActions {
  /** Trees an action runs on now (real paths), with the action. */
  private readonly claimed = new Map<string, ReviewAction>();

  constructor(private readonly o: TreeActionsOptions) {}

  for(target: ReviewTarget): ConversationReview {
    return new ConversationReview(this, target);
  }

  /** The action running on dir now, if any: a turn starting there waits for it. */
  acting(dir: string): ReviewAction | undefined {
    return this.claimed.get(real(dir));
  }

  /** The gateway's shutdown: running git children are stopped, the reason recorded first. */
  stop(reason: string): number {
    return this.o.run.stopAll(reason);
  }

  get run(): GitRunner {
    return this.o.run;
  }

  get options(): ChangesOptions {
    return { limits: this.o.limits };
  }

  get ghEnv(): NodeJS.ProcessEnv | undefined {
    return this.o.ghEnv;
  }

  /** Runs an action on trees, refusing while a turn runs or another action holds one of them. */
  async act<T>(t: ReviewTarget, action: ReviewAction, trees: string[], fn: () => Promise<T>): Promise<T> {
    if (!t.worktree) throw new RudderError('REVIEW_READ_ONLY', undefined, { conversationId: t.conversationId });
    if (t.busy()) throw new RudderError('REVIEW_BUSY', undefined, { conversationId: t.conversationId, action });
    const keys = [...new Set(trees.map(real))];
    const held = keys.map((k) => this.claimed.get(k)).find(Boolean);
    if (held)
      throw new RudderError('REVIEW_IN_PROGRESS', `(${held} is running.)`, {
        conversationId: t.conversationId,
        action,
      });
    for (const k of keys) this.claimed.set(k, action);
    const at = Date.now();
    try {
      const result = await fn();
      this.o.record?.({ conversationId: t.conversationId, action, at, ok: true, result });
      return result;
    } catch (err) {
      const error = isRudderError(err)
        ? { code: err.code, message: err.message }
        : { code: 'REVIEW_GIT_FAILED', message: String((err as Error)?.message ?? err) };
      this.o.record?.({ conversationId: t.conversationId, action, at, ok: false, error });
      throw err;
    } finally {
      for (const k of keys) this.claimed.delete(k);
    }
  }
}

/** One conversation's review as its callers use it, whether git runs here or on the project's node. */
export type TreeReview = Pick<
  ConversationReview,
  | 'view'
  | 'fileDiff'
  | 'baseChange'
  | 'commit'
  | 'merge'
  | 'push'
  | 'pullRequestAvailable'
  | 'openPullRequest'
  | 'discardPreview'
  | 'discard'
>;

/** One conversation's review: what its agent changed, and the actions on it. */
export class ConversationReview {
  constructor(
    private readonly actions: TreeActions,
    readonly target: ReviewTarget,
  ) {}

  /** The branch checked out in the project: what the worktree's branch is compared with and merged into. */
  base(): Promise<string> {
    return baseBranchOf(this.actions.run, this.target.projectDir);
  }

  /** The Changes view: against the base for a worktree, against HEAD for a project without worktrees. */
  async changes(): Promise<ChangeSet> {
    if (!this.target.worktree) return workingChanges(this.actions.run, this.target.dir, this.actions.options);
    return changes(this.actions.run, this.target.dir, await this.base(), this.actions.options);
  }

  /** The Changes view: the changes, whether a turn or an action holds the tree, and where a push would go. */
  async view(): Promise<TreeView> {
    const changes = await this.changes();
    const readOnly = !this.target.worktree;
    return {
      changes,
      readOnly,
      busy: this.target.busy(),
      acting: this.actions.acting(this.target.dir) ?? null,
      push: readOnly ? { unavailable: 'A project without worktrees is shown read-only.' } : await this.pushTarget(),
    };
  }

  async fileDiff(ref: FileRef): Promise<FileDiff> {
    const base = ref.section === 'committed' && this.target.worktree ? await this.base() : undefined;
    return fileDiff(this.actions.run, this.target.dir, ref, base, this.actions.options);
  }

  commit(message: string): Promise<CommitResult> {
    return this.actions.act(this.target, 'commit', [this.target.dir], () =>
      commit(this.actions.run, this.target.dir, message),
    );
  }

  merge(o: MergeOptions = {}): Promise<MergeResult> {
    return this.actions.act(this.target, 'merge', [this.target.dir, this.target.projectDir], async () =>
      merge(this.actions.run, this.target.dir, await this.base(), o),
    );
  }

  /** Pushes the worktree's branch (or, with which: 'base', the base branch after a merge) to the project's remote. */
  push(o: { remote?: string; which?: 'branch' | 'base' } = {}): Promise<PushResult> {
    return this.actions.act(this.target, 'push', [this.target.dir], async () => {
      const branch = o.which === 'base' ? await this.base() : await this.branch();
      return push(this.actions.run, this.target.dir, branch, { remote: o.remote });
    });
  }

  /** Whether the page should offer "open a pull request", and if not, why. */
  pullRequestAvailable(): Promise<GithubCli> {
    return githubCli(this.actions.run, this.target.dir, this.actions.ghEnv);
  }

  openPullRequest(o: Omit<PullRequestOptions, 'branch' | 'base' | 'env'> = {}): Promise<PullRequestResult> {
    return this.actions.act(this.target, 'pull-request', [this.target.dir], async () =>
      openPullRequest(this.actions.run, this.target.dir, {
        ...o,
        branch: await this.branch(),
        base: await this.base(),
        env: this.actions.ghEnv,
      }),
    );
  }

  /** The files a discard would remove (ignored ones included) and the token that confirms exactly them. */
  discardPreview(): Promise<DiscardPreview> {
    if (!this.target.worktree)
      return Promise.reject(
        new RudderError('REVIEW_READ_ONLY', undefined, { conversationId: this.target.conversationId }),
      );
    return discardPreview(this.actions.run, this.target.dir);
  }

  discard(confirm: string): Promise<DiscardResult> {
    return this.actions.act(this.target, 'discard', [this.target.dir], () =>
      discard(this.actions.run, this.target.dir, { confirm }),
    );
  }

  /** Where a push of the worktree's branch goes (its remote), or why it cannot go anywhere: the page says so. */
  async pushTarget(): Promise<{ remote: string } | { unavailable: string }> {
    try {
      return { remote: await remoteFor(this.actions.run, this.target.dir, await this.branch()) };
    } catch (err) {
      if (isRudderError(err, 'REVIEW_NO_REMOTE') || isRudderError(err, 'REVIEW_NOT_ON_BRANCH'))
        return { unavailable: err.message };
      throw err;
    }
  }

  /**
   * What the base changed in these files since the worktree's branch left it (`git diff <branch>...<base>`), for
   * the agent asked to resolve a merge's conflict; at most BASE_CHANGE_BYTES of it.
   */
  async baseChange(files: string[]): Promise<BaseChange> {
    const [branch, base] = [await this.branch(), await this.base()];
    const r = await this.actions.run.git(['diff', '--no-ext-diff', `${branch}...${base}`, '--', ...files], {
      cwd: this.target.dir,
      read: true,
      maxBytes: BASE_CHANGE_BYTES,
    });
    if (r.code !== 0 && !r.truncated)
      throw new RudderError('REVIEW_GIT_FAILED', `git diff ${branch}...${base}: ${r.stderr.trim()}`);
    return { branch, base, diff: r.stdout, cut: r.truncated };
  }

  private async branch(): Promise<string> {
    const r = await this.actions.run.git(['symbolic-ref', '-q', '--short', 'HEAD'], {
      cwd: this.target.dir,
      read: true,
    });
    if (r.code !== 0) throw new RudderError('REVIEW_NOT_ON_BRANCH', `Check out a branch in ${this.target.dir}.`);
    return r.stdout.trim();
  }
}
