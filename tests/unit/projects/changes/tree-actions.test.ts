/**
 * The per-conversation guard: every action refuses while a turn runs there, and while another
 * action holds the same tree; reads go on; a project without worktrees is read-only; the
 * gateway's stop ends a running git and what it started.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ReviewRecord, type ReviewTarget, TreeActions } from '../../../../src/projects/changes/tree-actions.js';
import { pidAlive, tempDir, waitUntil } from '../../../support/claude-rig.js';
import { runGit } from '../../../support/git-rig.js';
import { bareRemote, failure, projectRepo, runner, statusLines, worktree, write } from '../../../support/review-rig.js';

function rig(o: { runHooks?: boolean } = {}) {
  const repo = projectRepo();
  const bare = bareRemote(repo);
  const wt = worktree(repo);
  const records: ReviewRecord[] = [];
  const run = runner({ PATH: process.env.PATH }, o);
  const desk = new TreeActions({
    run,
    record: (r) => records.push(r),
    ghEnv: { ...process.env, PATH: tempDir('nogh') },
  });
  let busy = false;
  const target: ReviewTarget = {
    conversationId: 'web:c-review',
    dir: wt.path,
    projectDir: repo,
    worktree: true,
    busy: () => busy,
  };
  return { repo, bare, wt, desk, records, review: desk.for(target), setBusy: (b: boolean) => void (busy = b) };
}

describe('the review guard', () => {
  it('refuses every action while a turn runs in the worktree, changing nothing; reads go on', async () => {
    const { repo, bare, wt, records, review, setBusy } = rig();
    write(wt.path, 'a.txt', 'agent\n');
    setBusy(true);
    const preview = await review.discardPreview();
    const attempts = {
      commit: review.commit('agent work'),
      merge: review.merge(),
      push: review.push(),
      'pull-request': review.openPullRequest({ title: 'x' }),
      discard: review.discard(preview.token),
    };
    for (const [action, p] of Object.entries(attempts)) {
      const f = await failure(p);
      expect(f.code, action).toBe('REVIEW_BUSY');
      expect(f.message).toContain('A turn is running in this worktree. Wait for it to end or /stop it');
      expect(f.context).toMatchObject({ conversationId: 'web:c-review', action });
    }
    expect(statusLines(wt.path)).toEqual([' M a.txt']);
    expect(runGit(wt.path, 'log', '--format=%s', '-1')).toBe('files');
    expect(runGit(bare, 'branch', '--list')).toBe('');
    expect(records).toEqual([]);
    const set = await review.changes();
    expect(set.sections.unstaged.files.map((f) => f.path)).toEqual(['a.txt']);

    setBusy(false);
    await review.commit('agent work');
    expect(await review.merge()).toMatchObject({ kind: 'fast-forward' });
    expect(await review.push()).toMatchObject({ remote: 'origin', kind: 'created' });
    expect(await review.push({ which: 'base' })).toMatchObject({ branch: 'main', kind: 'created' });
    expect(runGit(bare, 'log', '--format=%s', '-1', 'main')).toBe('agent work');
    expect(await review.openPullRequest({ title: 'x' })).toMatchObject({ opened: false, code: 'REVIEW_GH_MISSING' });
    expect(runGit(repo, 'log', '--format=%s', '-1')).toBe('agent work');
    expect(records.map((r) => [r.action, r.ok])).toEqual([
      ['commit', true],
      ['merge', true],
      ['push', true],
      ['push', true],
      ['pull-request', true],
    ]);
    const failed = await failure(review.commit('nothing left'));
    expect(failed.code).toBe('REVIEW_NOTHING_TO_COMMIT');
    expect(records.at(-1)).toMatchObject({ action: 'commit', ok: false, error: { code: 'REVIEW_NOTHING_TO_COMMIT' } });
  });

  it('refuses a second action on a tree while one runs, and a merge into a base another is merging into', async () => {
    const { repo, wt, desk, review } = rig();
    const gate = path.join(tempDir('gate'), 'go');
    // A pre-commit hook that holds the commit until the test opens the gate.
    write(repo, '.git/hooks/pre-commit', `#!/bin/sh\nwhile [ ! -f '${gate}' ]; do sleep 0.05; done\n`);
    fs.chmodSync(path.join(repo, '.git/hooks/pre-commit'), 0o755);
    write(wt.path, 'a.txt', 'agent\n');
    const committing = review.commit('held by the hook');
    expect(desk.acting(wt.path)).toBe('commit');
    const second = await failure(review.discard('x'));
    expect(second.code).toBe('REVIEW_IN_PROGRESS');
    expect(second.message).toContain('(commit is running.)');
    // Another conversation's merge into the same base is refused too, while that one merges (the test's own
    // commits skip the hook: they run synchronously and would wait on the gate forever).
    const other = worktree(repo, 'web:c-other');
    write(other.path, 'b.txt', 'other\n');
    runGit(other.path, 'commit', '--no-verify', '-qam', 'other work');
    fs.writeFileSync(gate, '');
    await committing;
    expect(desk.acting(wt.path)).toBeUndefined();
    const otherReview = desk.for({
      conversationId: 'web:c-other',
      dir: other.path,
      projectDir: repo,
      worktree: true,
      busy: () => false,
    });
    fs.rmSync(gate);
    write(repo, '.git/hooks/pre-merge-commit', `#!/bin/sh\nwhile [ ! -f '${gate}' ]; do sleep 0.05; done\n`);
    fs.chmodSync(path.join(repo, '.git/hooks/pre-merge-commit'), 0o755);
    write(repo, 'README.md', '# moved on\n');
    runGit(repo, 'commit', '--no-verify', '-qam', 'main moves');
    const merging = otherReview.merge();
    expect(desk.acting(repo)).toBe('merge');
    expect((await failure(review.merge())).code).toBe('REVIEW_IN_PROGRESS');
    fs.writeFileSync(gate, '');
    expect(await merging).toMatchObject({ kind: 'merge-commit' });
    expect(await review.merge()).toMatchObject({ kind: 'merge-commit' });
    expect(runGit(repo, 'log', '--format=%s', '-2').split('\n')).toEqual([
      `Merge branch '${wt.branch}'`,
      `Merge branch '${other.branch}'`,
    ]);
  });

  it('shows a project without worktrees read-only: its changes against HEAD, every action refused', async () => {
    const repo = projectRepo();
    write(repo, 'a.txt', 'edited in place\n');
    const desk = new TreeActions({ run: runner() });
    const review = desk.for({
      conversationId: 'web:plain',
      dir: repo,
      projectDir: repo,
      worktree: false,
      busy: () => false,
    });
    const set = await review.changes();
    expect(set.base).toBeUndefined();
    expect(set.sections.unstaged.files.map((f) => f.path)).toEqual(['a.txt']);
    for (const p of [review.commit('x'), review.merge(), review.push(), review.discardPreview(), review.discard('t')])
      expect((await failure(p)).code).toBe('REVIEW_READ_ONLY');
    expect(statusLines(repo)).toEqual([' M a.txt']);
  });

  it("stops a running git at the gateway's stop, with what it started, and says why", async () => {
    const { repo, wt, desk, review } = rig({ runHooks: true });
    const pids = path.join(tempDir('pids'), 'hook.pid');
    // The hook starts a child of its own and waits: both must go.
    write(repo, '.git/hooks/pre-commit', `#!/bin/sh\nsleep 120 &\necho $! > '${pids}'\nwait\n`);
    fs.chmodSync(path.join(repo, '.git/hooks/pre-commit'), 0o755);
    write(wt.path, 'a.txt', 'agent\n');
    const committing = review.commit('never lands');
    await waitUntil(() => fs.existsSync(pids) && fs.readFileSync(pids, 'utf8').trim() !== '', 30_000);
    const sleeper = Number(fs.readFileSync(pids, 'utf8'));
    expect(pidAlive(sleeper)).toBe(true);
    expect(desk.stop('Rudder is stopping')).toBe(1);
    const f = await failure(committing);
    expect(f.code).toBe('REVIEW_GIT_STOPPED');
    expect(f.message).toContain('(Rudder is stopping)');
    await waitUntil(() => !pidAlive(sleeper), 10_000);
    expect(runGit(wt.path, 'log', '--format=%s', '-1')).toBe('files');
    expect(desk.acting(wt.path)).toBeUndefined();
  });
});
