/**
 * Reviewing the agent's work in a conversation's worktree, step by step: its changes (changes.ts,
 * untracked.ts), commit, merge, push, pull request, discard, the per-conversation guard the
 * gateway calls (guard.ts), line comments as one message (comments.ts) and /diff's chat rendering
 * (chat-diff.ts). git runs through run.ts.
 */
export { changes, type FileRef, fileDiff, workingChanges } from './changes.js';
export { type ChatDiff, type ChatDiffOptions, diffText, renderChatDiff, withFullDiffs } from './chat-diff.js';
export { commentsMessage, type LineComment, quoteLines } from './comments.js';
export { commit } from './commit.js';
export { discard, discardPreview } from './discard.js';
export {
  ConversationReview,
  type ReviewAction,
  ReviewDesk,
  type ReviewDeskOptions,
  type ReviewRecord,
  type ReviewTarget,
} from './guard.js';
export { type MergeOptions, merge } from './merge.js';
export { findGh, githubCli, openPullRequest, type PullRequestOptions } from './pull-request.js';
export { push } from './push.js';
export { baseBranchOf } from './repo.js';
export { GitRunner, type GitRunnerOptions } from './run.js';
export * from './types.js';
