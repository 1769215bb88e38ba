/**
 * One line per review action, as the conversation's history keeps it and a chat command answers:
 * what was done (or why not) and what to do next. Pure.
 */
import type {
  CommitResult,
  DiscardResult,
  MergeResult,
  PullRequestResult,
  PushResult,
} from '../../projects/changes/types.js';
import type { DiscardSummary, ReviewActionName } from './types.js';

const SHOWN = 5;
const short = (sha: string) => sha.slice(0, 7);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function names(files: string[], shown = SHOWN): string {
  const head = files.slice(0, shown).join(', ');
  return files.length > shown ? `${head} and ${files.length - shown} more` : head;
}

export function commitSummary(r: CommitResult): string {
  return `Committed ${plural(r.files, 'file')} on ${r.branch} (${short(r.sha)}): ${r.summary}`;
}

export function mergeSummary(r: MergeResult): string {
  switch (r.kind) {
    case 'up-to-date':
      return `${r.base} already has everything on ${r.branch}; nothing to merge.`;
    case 'fast-forward':
      return `Merged ${r.branch} into ${r.base} (fast-forward, ${plural(r.commits, 'commit')}): ${r.base} is at ${short(
        r.to,
      )}.`;
    case 'merge-commit':
      return `Merged ${r.branch} into ${r.base} with a merge commit (${short(r.to)}, ${plural(r.commits, 'commit')}).`;
    case 'conflict':
      return (
        `The merge of ${r.branch} into ${r.base} stopped on a conflict in ${names(r.files)}; nothing was changed. ` +
        `Ask the agent to merge ${r.base} into its branch and resolve it, then merge again.`
      );
  }
}

export function pushSummary(r: PushResult): string {
  if (r.kind === 'up-to-date') return `${r.remote} already has ${r.branch} at ${short(r.head)}.`;
  const what = r.kind === 'created' ? 'a new branch' : 'updated';
  return `Pushed ${r.branch} to ${r.remote} (${r.url}): ${what} at ${short(r.head)}.`;
}

export function pullRequestSummary(r: PullRequestResult): string {
  return r.opened ? `Opened a pull request of ${r.branch} into ${r.base}: ${r.url}` : r.message;
}

export function discardSummary(r: DiscardResult): DiscardSummary {
  return { removed: r.removed.length, remaining: r.remaining.length, files: r.removed.slice(0, 20).map((e) => e.path) };
}

export function discardText(r: DiscardSummary): string {
  if (!r.removed && !r.remaining) return 'There was nothing uncommitted to discard.';
  const kept = r.remaining ? ` ${plural(r.remaining, 'path')} stayed (a nested repository git does not remove).` : '';
  return `Discarded ${plural(r.removed, 'uncommitted file')}: ${names(r.files)}.${kept}`;
}

const TITLES: Record<ReviewActionName, string> = {
  commit: 'The commit',
  merge: 'The merge',
  push: 'The push',
  'pull-request': 'The pull request',
  discard: 'The discard',
};

export function failureSummary(action: ReviewActionName, message: string): string {
  return `${TITLES[action]} did not happen: ${message}`;
}
