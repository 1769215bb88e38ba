/**
 * The pull-request shepherd reading GitHub's example payloads: failed checks, reviews, review comments and PR
 * comments become messages naming the check and its summary and link, or the reviewer, file and line; PRs opened
 * from a branch here are owned, closed ones let go; everything else is ignored with the reason.
 */
import type { CheckSuiteCompletedEvent, IssueCommentCreatedEvent } from '@octokit/webhooks-types';
import { describe, expect, it } from 'vitest';
import { SHEPHERD_EVENTS } from '../../../../src/hooks/github/event.js';
import { readGithubEvent } from '../../../../src/hooks/github/shepherd.js';
import { example, examples } from '../../../support/github-examples.js';

const HELLO = 'Codertocat/Hello-World';

/** A message for PR #2 of the examples (branch `changes`), its text in lines. */
const onPr2 = (about: 'check' | 'review' | 'comment', ...lines: string[]) => ({
  kind: 'message',
  about,
  target: { repository: HELLO, branch: 'changes', prs: [2] },
  text: lines.join('\n'),
});

describe('checks', () => {
  it('a failed check run names the check, its PR and branch, its summary and its links', () => {
    const run = example('check_run', (e) => e.action === 'completed' && e.check_run.conclusion === 'failure');
    run.check_run.output.title = 'Lint failed';
    run.check_run.output.summary = '3 errors in src/app.ts';
    expect(readGithubEvent('check_run', run)).toEqual(
      onPr2(
        'check',
        'Check "Octocoders-linter" failed (failure) on Codertocat/Hello-World, PR #2 (branch changes, commit ec26c3e).',
        'Summary:',
        'Lint failed',
        '3 errors in src/app.ts',
        'https://github.com/Codertocat/Hello-World/runs/128620228',
        'Details: https://octocoders.io',
      ),
    );
  });

  it("says so when the check gave no summary (GitHub's example as it is)", () => {
    const run = example('check_run', (e) => e.action === 'completed' && e.check_run.conclusion === 'failure');
    const ev = readGithubEvent('check_run', run);
    expect(ev.kind === 'message' && ev.text.split('\n')[1]).toBe('It gave no summary.');
  });

  it('ignores every other check run of the examples: created, passed, neutral, requested', () => {
    const others = examples('check_run').filter((e) => e.check_run.conclusion !== 'failure');
    expect(others.length).toBeGreaterThan(5);
    for (const e of others) expect(readGithubEvent('check_run', e)).toMatchObject({ kind: 'ignore' });
    const passed = others.find((e) => e.action === 'completed');
    expect(readGithubEvent('check_run', passed)).toEqual({ kind: 'ignore', why: 'a check completed with success' });
  });

  it('a failed check suite names the app, the branch and the checks page of its commit', () => {
    const suite: CheckSuiteCompletedEvent = example(
      'check_suite',
      (e) => e.action === 'completed',
    ) as CheckSuiteCompletedEvent;
    expect(readGithubEvent('check_suite', suite)).toMatchObject({ kind: 'ignore' });
    suite.check_suite.conclusion = 'timed_out';
    expect(readGithubEvent('check_suite', suite)).toEqual(
      onPr2(
        'check',
        'The checks of octocoders-linter failed (timed_out) on Codertocat/Hello-World, PR #2 (branch changes, ' +
          'commit ec26c3e).',
        'https://github.com/Codertocat/Hello-World/commit/ec26c3e57ca3a959ca5aad62de7213c562f8c821/checks',
      ),
    );
  });
});

describe('reviews and comments', () => {
  it('a review comment names the reviewer, the file and line, the comment and its link', () => {
    const c = example('pull_request_review_comment', (e) => e.action === 'created' && e.comment.line !== undefined);
    expect(readGithubEvent('pull_request_review_comment', c)).toEqual(
      onPr2(
        'comment',
        'Codertocat commented on README.md line 265 in PR #2 on Codertocat/Hello-World:',
        'Maybe you should use more emoji on this line.',
        'https://github.com/Codertocat/Hello-World/pull/2#discussion_r284312630',
      ),
    );
  });

  it('a comment on several lines names the range; a comment without a line names the file', () => {
    const c = example('pull_request_review_comment', (e) => e.action === 'created' && e.comment.line !== undefined);
    c.comment.start_line = 260;
    const ev = readGithubEvent('pull_request_review_comment', c);
    expect(ev.kind === 'message' && ev.text).toContain('on README.md lines 260-265 in PR #2');
    // The oldest example has only a diff position, no line of the file: the file alone is named.
    const old = example('pull_request_review_comment', (e) => e.action === 'created' && e.comment.line === undefined);
    const oldEv = readGithubEvent('pull_request_review_comment', old);
    expect(oldEv.kind === 'message' && oldEv.text).toContain('commented on README.md in PR #2');
  });

  it('ignores edited and deleted review comments', () => {
    const others = examples('pull_request_review_comment').filter((x) => x.action !== 'created');
    // Both kinds the name promises are among the examples, so the loop below cannot pass on none.
    expect(others.map((e) => e.action).sort()).toEqual(['deleted', 'edited']);
    for (const e of others)
      expect(readGithubEvent('pull_request_review_comment', e)).toEqual({
        kind: 'ignore',
        why: `a review comment ${e.action}, not created`,
      });
  });

  it('a review with no text of its own is ignored (its line comments arrive one by one); with text it is news', () => {
    const review = example('pull_request_review', (e) => e.action === 'submitted');
    expect(readGithubEvent('pull_request_review', review)).toEqual({
      kind: 'ignore',
      why: 'a review with no text of its own: its comments arrive one by one',
    });
    review.review.state = 'changes_requested';
    review.review.body = 'Please add a test for the empty case.';
    expect(readGithubEvent('pull_request_review', review)).toEqual(
      onPr2(
        'review',
        'Codertocat reviewed PR #2 on Codertocat/Hello-World and requested changes.',
        'Please add a test for the empty case.',
        'https://github.com/Codertocat/Hello-World/pull/2#pullrequestreview-237895671',
      ),
    );
    const dismissed = example('pull_request_review', (e) => e.action === 'dismissed');
    expect(readGithubEvent('pull_request_review', dismissed)).toMatchObject({ kind: 'ignore' });
  });

  it('a comment on a PR goes to the PR by number (the payload names no branch); on an issue it is ignored', () => {
    const onIssue = example('issue_comment', (e) => e.action === 'created');
    expect(readGithubEvent('issue_comment', onIssue)).toEqual({
      kind: 'ignore',
      why: 'a comment on an issue, not on a pull request',
    });
    const onPr: IssueCommentCreatedEvent = { ...onIssue, action: 'created' } as IssueCommentCreatedEvent;
    onPr.issue.pull_request = {
      url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1',
      html_url: 'https://github.com/Codertocat/Hello-World/pull/1',
      diff_url: 'https://github.com/Codertocat/Hello-World/pull/1.diff',
      patch_url: 'https://github.com/Codertocat/Hello-World/pull/1.patch',
    };
    expect(readGithubEvent('issue_comment', onPr)).toEqual({
      kind: 'message',
      about: 'comment',
      target: { repository: HELLO, prs: [1] },
      text:
        "Codertocat commented on PR #1 on Codertocat/Hello-World:\nYou are totally right! I'll get this fixed right " +
        'away.\nhttps://github.com/Codertocat/Hello-World/issues/1#issuecomment-492700400',
    });
  });

  it("ignores what bots and the hook's ignored logins write, so the agent's own comments never loop back", () => {
    const c = example('pull_request_review_comment', (e) => e.action === 'created');
    expect(readGithubEvent('pull_request_review_comment', c, { ignoreUsers: ['Codertocat'] })).toEqual({
      kind: 'ignore',
      why: 'a review comment written by Codertocat, whom the hook ignores',
    });
    if (c.comment.user) c.comment.user.type = 'Bot';
    expect(readGithubEvent('pull_request_review_comment', c)).toEqual({
      kind: 'ignore',
      why: 'a review comment written by a bot (Codertocat)',
    });
  });
});

describe('pull requests', () => {
  it('a PR opened from a branch of the repository is owned by that branch', () => {
    const opened = example('pull_request', (e) => e.action === 'opened');
    expect(readGithubEvent('pull_request', opened)).toEqual({
      kind: 'pr-opened',
      target: { repository: HELLO, branch: 'changes', prs: [2] },
      pr: 2,
      text:
        'PR #2 "Update the README with new information." was opened from branch changes on ' +
        'Codertocat/Hello-World: https://github.com/Codertocat/Hello-World/pull/2',
    });
  });

  it('a PR from a fork is never owned: its branch name is not ours', () => {
    const opened = example('pull_request', (e) => e.action === 'opened');
    if (opened.pull_request.head.repo) opened.pull_request.head.repo.full_name = 'mallory/Hello-World';
    expect(readGithubEvent('pull_request', opened)).toEqual({
      kind: 'ignore',
      why: 'PR #2 comes from a fork (mallory/Hello-World), not a branch here',
    });
  });

  it('a PR closed tells its owner whether it was merged', () => {
    const closed = example('pull_request', (e) => e.action === 'closed');
    const ev = readGithubEvent('pull_request', closed);
    expect(ev).toMatchObject({ kind: 'pr-closed', pr: 2, merged: false });
    expect(ev.kind === 'pr-closed' && ev.text).toContain('was closed unmerged');
    const merged = example('pull_request', (e) => e.action === 'closed');
    merged.pull_request.merged = true;
    expect(readGithubEvent('pull_request', merged)).toMatchObject({ kind: 'pr-closed', merged: true });
  });

  it('ignores the other PR actions of the examples', () => {
    const others = examples('pull_request').filter((e) => !['opened', 'reopened', 'closed'].includes(e.action));
    for (const e of others) expect(readGithubEvent('pull_request', e)).toMatchObject({ kind: 'ignore' });
  });
});

describe('the door', () => {
  it('ignores a ping, events it does not read, events the hook did not take, and payloads of another shape', () => {
    expect(readGithubEvent('ping', example('ping'))).toEqual({
      kind: 'ignore',
      why: 'a ping: GitHub checking the hook',
    });
    expect(readGithubEvent('push', example('push'))).toEqual({
      kind: 'ignore',
      why: 'push is not an event the shepherd reads',
    });
    const run = example('check_run', (e) => e.check_run.conclusion === 'failure');
    expect(readGithubEvent('check_run', run, { events: ['pull_request'] })).toEqual({
      kind: 'ignore',
      why: "check_run is not among this hook's events",
    });
    expect(readGithubEvent('check_run', example('issue_comment'))).toEqual({
      kind: 'ignore',
      why: 'the check_run payload lacks check_run or has it in another shape',
    });
    expect(readGithubEvent('issue_comment', null)).toMatchObject({ kind: 'ignore' });
  });

  it('reads every example of every event it takes without throwing', () => {
    for (const name of SHEPHERD_EVENTS)
      for (const e of examples(name))
        expect(['message', 'ignore', 'pr-opened', 'pr-closed']).toContain(readGithubEvent(name, e).kind);
  });
});
