/**
 * What people say on a PR: a review submitted, a review comment on a line, a comment on the PR's conversation.
 * Each becomes a message for the conversation that owns the PR, naming who said it, where (file and line) and
 * what, with the link. Edits and deletions are ignored (the agent already had the first version), and so are
 * bots and the logins the hook ignores, so that the agent's own comments never come back to it as news.
 */
import { cut } from '../template.js';
import { ignore, MAX_COMMENT_CHARS, type PrTarget, type ShepherdEvent, type ShepherdOptions } from './event.js';
import type { GithubUser, IssueCommentPayload, ReviewCommentPayload, ReviewPayload } from './payloads.js';

/** Why a person's words are not passed on, or undefined when they are. */
function fromIgnored(who: GithubUser | null, sender: GithubUser, opts: ShepherdOptions): string | undefined {
  const author = who ?? sender;
  if (author.type === 'Bot') return `written by a bot (${author.login})`;
  if (opts.ignoreUsers?.includes(author.login)) return `written by ${author.login}, whom the hook ignores`;
  return undefined;
}

const quote = (body: string | null) => (body?.trim() ? cut(body.trim(), MAX_COMMENT_CHARS) : undefined);

const prTarget = (p: { repository: { full_name: string }; pull_request: { number: number; head: { ref: string } } }) =>
  ({
    repository: p.repository.full_name,
    branch: p.pull_request.head.ref,
    prs: [p.pull_request.number],
  }) satisfies PrTarget;

const STATES: Record<string, string> = {
  approved: 'approved it',
  changes_requested: 'requested changes',
  commented: 'commented',
};

export function readReview(p: ReviewPayload, opts: ShepherdOptions): ShepherdEvent {
  if (p.action !== 'submitted') return ignore(`a review ${p.action}, not submitted`);
  const who = fromIgnored(p.review.user, p.sender, opts);
  if (who) return ignore(`a review ${who}`);
  const body = quote(p.review.body);
  const state = p.review.state.toLowerCase();
  // A bare "commented" review only wraps its line comments, which arrive one by one.
  if (state === 'commented' && !body) return ignore('a review with no text of its own: its comments arrive one by one');
  const login = (p.review.user ?? p.sender).login;
  const did = STATES[state] ?? state;
  const lines = [
    `${login} reviewed PR #${p.pull_request.number} on ${p.repository.full_name} and ${did}.`,
    body,
    p.review.html_url,
  ];
  return { kind: 'message', about: 'review', target: prTarget(p), text: lines.filter(Boolean).join('\n') };
}

/** "README.md line 265", "src/a.ts lines 10-14", "README.md" (a comment on the file). */
function place(c: ReviewCommentPayload['comment']): string {
  const line = c.line ?? c.original_line;
  if (c.subject_type === 'file' || line === null || line === undefined) return c.path;
  const start = c.start_line;
  return start !== null && start !== undefined && start !== line
    ? `${c.path} lines ${start}-${line}`
    : `${c.path} line ${line}`;
}

export function readReviewComment(p: ReviewCommentPayload, opts: ShepherdOptions): ShepherdEvent {
  if (p.action !== 'created') return ignore(`a review comment ${p.action}, not created`);
  const who = fromIgnored(p.comment.user, p.sender, opts);
  if (who) return ignore(`a review comment ${who}`);
  const login = (p.comment.user ?? p.sender).login;
  const lines = [
    `${login} commented on ${place(p.comment)} in PR #${p.pull_request.number} on ${p.repository.full_name}:`,
    quote(p.comment.body) ?? '(no text)',
    p.comment.html_url,
  ];
  return { kind: 'message', about: 'comment', target: prTarget(p), text: lines.join('\n') };
}

export function readIssueComment(p: IssueCommentPayload, opts: ShepherdOptions): ShepherdEvent {
  if (!p.issue.pull_request) return ignore('a comment on an issue, not on a pull request');
  if (p.action !== 'created') return ignore(`a comment ${p.action}, not created`);
  const who = fromIgnored(p.comment.user, p.sender, opts);
  if (who) return ignore(`a comment ${who}`);
  const login = (p.comment.user ?? p.sender).login;
  const lines = [
    `${login} commented on PR #${p.issue.number} on ${p.repository.full_name}:`,
    quote(p.comment.body) ?? '(no text)',
    p.comment.html_url,
  ];
  // An issue comment names the PR but not its branch: the PR's owner is found by its number.
  const target: PrTarget = { repository: p.repository.full_name, prs: [p.issue.number] };
  return { kind: 'message', about: 'comment', target, text: lines.join('\n') };
}
