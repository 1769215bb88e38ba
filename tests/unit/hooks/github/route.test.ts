/**
 * Which conversation a shepherd event goes to: the PR's owner, then the branch's; an unowned message to the
 * project's default conversation or dropped, as the hook says. Events are read from GitHub's examples.
 */
import { describe, expect, it } from 'vitest';
import type { ShepherdEvent } from '../../../../src/hooks/github/event.js';
import { type Owners, routeShepherdEvent } from '../../../../src/hooks/github/route.js';
import { readGithubEvent } from '../../../../src/hooks/github/shepherd.js';
import { example } from '../../../support/github-examples.js';

const HELLO = 'Codertocat/Hello-World';

/** Owners as the store would answer: PR #2 of Hello-World owned by one conversation, branch `changes` by it too. */
function owners(prs: Record<number, string>, branches: Record<string, string>): Owners {
  return {
    byPr: (repo, pr) => (repo === HELLO ? prs[pr] : undefined),
    byBranch: (repo, branch) => (repo === HELLO ? branches[branch] : undefined),
  };
}

function routed(ev: ShepherdEvent) {
  if (ev.kind === 'ignore') throw new Error(ev.why);
  return ev;
}

const failedRun = () =>
  routed(
    readGithubEvent(
      'check_run',
      example('check_run', (e) => e.check_run.conclusion === 'failure'),
    ),
  );

describe('routing shepherd events', () => {
  const drop = { unowned: 'drop' as const };

  it("goes to the PR's owner first", () => {
    const o = owners({ 2: 'telegram:1' }, { changes: 'web:other' });
    expect(routeShepherdEvent(failedRun(), o, drop)).toEqual({ to: 'telegram:1', via: 'pr' });
  });

  it("goes to the branch's conversation when no one owns the PR yet (pushed before the PR)", () => {
    expect(routeShepherdEvent(failedRun(), owners({}, { changes: 'web:a' }), drop)).toEqual({
      to: 'web:a',
      via: 'branch',
    });
  });

  it('finds a PR comment by number alone (its payload names no branch)', () => {
    const comment = example('issue_comment', (e) => e.action === 'created');
    comment.issue.pull_request = {
      url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1',
      html_url: 'https://github.com/Codertocat/Hello-World/pull/1',
      diff_url: 'https://github.com/Codertocat/Hello-World/pull/1.diff',
      patch_url: 'https://github.com/Codertocat/Hello-World/pull/1.patch',
    };
    const ev = routed(readGithubEvent('issue_comment', comment));
    expect(routeShepherdEvent(ev, owners({ 1: 'slack:C1' }, {}), drop)).toEqual({ to: 'slack:C1', via: 'pr' });
    expect(routeShepherdEvent(ev, owners({}, { changes: 'web:a' }), drop)).toEqual({
      drop: 'no conversation owns PR #1 on Codertocat/Hello-World',
    });
  });

  it('sends an unowned message to the default conversation when the hook says so, else drops it saying why', () => {
    const none = owners({}, {});
    expect(routeShepherdEvent(failedRun(), none, { unowned: 'default', fallback: 'web:main' })).toEqual({
      to: 'web:main',
      via: 'unowned',
    });
    expect(routeShepherdEvent(failedRun(), none, drop)).toEqual({
      drop: 'no conversation owns PR #2 on Codertocat/Hello-World',
    });
    expect(routeShepherdEvent(failedRun(), none, { unowned: 'default' })).toMatchObject({ drop: expect.any(String) });
  });

  it('a PR opened is owned by its branch only, and one nobody opened is dropped even with a default', () => {
    const opened = routed(
      readGithubEvent(
        'pull_request',
        example('pull_request', (e) => e.action === 'opened'),
      ),
    );
    expect(routeShepherdEvent(opened, owners({ 2: 'web:stale' }, { changes: 'web:a' }), drop)).toEqual({
      to: 'web:a',
      via: 'branch',
    });
    expect(routeShepherdEvent(opened, owners({}, {}), { unowned: 'default', fallback: 'web:main' })).toEqual({
      drop: 'no conversation owns PR #2 on Codertocat/Hello-World',
    });
  });
});
