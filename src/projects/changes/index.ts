/**
 * What the agent changed in a conversation's tree, and the git work on it, step by step: its
 * changes (changes.ts, untracked.ts), commit, merge, push, pull request, discard, which tree an
 * action runs on now (tree-actions.ts, which the gateway calls), line comments as one message
 * (comments.ts) and /diff's chat rendering (chat-diff.ts). git runs through run.ts.
 */
export { changes, type FileRef, fileDiff, workingChanges } from './changes.js';
export { type ChatDiff, type ChatDiffOptions, diffText, renderChatDiff, withFullDiffs } from './chat-diff.js';
export { commentsMessage, type LineComment, quoteLines } from './comments.js';
export { commit } from './commit.js';
export { discard, discardPreview } from './discard.js';
export { type MergeOptions, merge } from './merge.js';
export { findGh, githubCli, openPullRequest, type PullRequestOptions } from './pull-request.js';
export { push } from './push.js';
export { baseBranchOf } from './repo.js';
export { GitRunner, type GitRunnerOptions } from './run.js';
export {
  ConversationReview,
  type ReviewRecord,
  type ReviewTarget,
  TreeActions,
  type TreeActionsOptions,
  type TreeReview,
} from './tree-actions.js';
export * from './types.js';
