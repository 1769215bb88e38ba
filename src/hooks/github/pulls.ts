/**
 * A PR's life as ownership: opened (or reopened) from a branch of the same repository, it belongs to the
 * conversation whose worktree is on that branch; closed or merged, that conversation is told and the ownership
 * ends. A PR from a fork is never owned: its branch name is someone else's to choose.
 */
import { ignore, type ShepherdEvent } from './event.js';
import type { PullRequestPayload } from './payloads.js';

export function readPullRequest(p: PullRequestPayload): ShepherdEvent {
  const pr = p.pull_request;
  const repository = p.repository.full_name;
  const branch = pr.head.ref;
  const title = pr.title ? ` "${pr.title}"` : '';
  if (p.action === 'opened' || p.action === 'reopened') {
    if (pr.head.repo?.full_name !== pr.base.repo.full_name)
      return ignore(`PR #${pr.number} comes from a fork (${pr.head.repo?.full_name ?? 'deleted'}), not a branch here`);
    return {
      kind: 'pr-opened',
      target: { repository, branch, prs: [pr.number] },
      pr: pr.number,
      text: `PR #${pr.number}${title} was ${p.action} from branch ${branch} on ${repository}: ${pr.html_url}`,
    };
  }
  if (p.action === 'closed') {
    const merged = pr.merged === true;
    return {
      kind: 'pr-closed',
      target: { repository, branch, prs: [pr.number] },
      pr: pr.number,
      merged,
      text: `PR #${pr.number}${title} on ${repository} was ${merged ? 'merged' : 'closed unmerged'}: ${pr.html_url}`,
    };
  }
  return ignore(`a pull request ${p.action}, neither opened nor closed`);
}
