/**
 * Reviewing the agent's work through the HTTP API, on the real CLI against the mock Messages API
 * and real git (a bare remote on disk): the agent edits two files and adds one in its worktree; the
 * changes show those three with their diffs; a line comment reaches the model once, wrapped, quoting
 * the line; nothing runs while a turn runs there, and a turn waits for a running commit; commit,
 * a conflicting change on the base that stops the merge cleanly, merge, push; discard only with the
 * token of the list it showed; every action in the conversation's history.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKER_CLOSE, MARKER_OPEN } from '../../../src/security/wrap.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { runGit } from '../../support/git-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import {
  A_TXT,
  agentEdits,
  bareRemote,
  commitAll,
  projectRepo,
  read,
  statusLines,
  write,
} from '../../support/review-rig.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let repo: string;
let bare: string;
/** A project without worktrees: its working tree's changes are shown, read-only. */
let plain: string;
let budget = 30_000;
/** The GitHub CLI's stand-in (the far side of a pull request), logged in, first on the gateway's PATH. */
const FAKE_GH = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../support/fake-gh.mjs');
const ghBin = tempDir('ghbin');
const ghLog = path.join(tempDir('ghlog'), 'calls.jsonl');
fs.symlinkSync(FAKE_GH, path.join(ghBin, 'gh'));

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockApi();
  repo = projectRepo();
  bare = bareRemote(repo);
  plain = projectRepo();
  gw = await startInProcess(
    {
      agent: agentConfig(mock.url, tempDir('chome')),
      projects: { repo: { path: repo, worktrees: true }, plain: { path: plain } },
      defaultProject: 'repo',
      // The repository's hooks run: the test that holds a commit does it with a pre-commit hook.
      review: { runHooks: true },
    },
    { env: { PATH: `${ghBin}:${process.env.PATH}`, FAKE_GH_AUTH: 'ok', FAKE_GH_LOG: ghLog } },
  );
  budget = Math.min(120_000, Math.max(30_000, (Date.now() - t0) * 15));
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

async function call(method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await gw.api(method, p, body);
  return { status: res.status, body: await res.json() };
}

const changes = (conv: string) => `/api/conversations/${conv}/changes`;
const times = (haystack: string, needle: string) => haystack.split(needle).length - 1;

/** A new web conversation in the repo project whose agent made the three edits; its id and worktree. */
async function editedConversation(): Promise<{ conv: string; wt: string }> {
  const made = await call('POST', '/api/conversations', { project: 'repo' });
  const conv = made.body.id as string;
  const worktreeOf = () => gw.gw.services.store.projects.get(`web:${conv}`, 'repo')!.worktree!;
  expect((await call('GET', changes(conv))).body.error.code).toBe('REVIEW_NO_WORKTREE');
  agentEdits(mock, worktreeOf);
  const w = gw.watch(conv);
  await w.ready;
  const m = await gw.post(conv, 'Uppercase gamma, drop two, add a parser. tag:review-edit');
  await w.waitReply(m.messageId, 'reply', budget);
  mock.setScript(undefined);
  return { conv, wt: worktreeOf() };
}

describe('the review over HTTP (real CLI, real git)', () => {
  it('shows the edits, sends a line comment once, refuses while a turn runs, then commit, merge and push', async () => {
    expect((await call('GET', changes('nobody'))).status).toBe(404);
    const { conv, wt } = await editedConversation();

    const got = await call('GET', changes(conv));
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ project: 'repo', readOnly: false, busy: false, acting: null });
    const set = got.body.changes;
    expect(set).toMatchObject({ branch: `rudder/web/${conv}`, base: { name: 'main', ahead: 0, behind: 0 } });
    const files = [...set.sections.unstaged.files, ...set.sections.untracked.files];
    expect(files.map((f: any) => [f.section, f.path, f.status, f.added, f.deleted])).toEqual([
      ['unstaged', 'a.txt', 'modified', 1, 1],
      ['unstaged', 'b.txt', 'modified', 0, 1],
      ['untracked', 'src/parser.ts', 'added', 1, 0],
    ]);
    expect(files[0].diff).toMatch(/^-gamma\n\+GAMMA$/m);
    expect(files[1].diff).toMatch(/^ one\n-two\n three$/m);
    expect(files[2].diff).toContain('+export const parse = (s: string) => s;');
    const one = await call('GET', `${changes(conv)}/file?section=unstaged&path=a.txt`);
    expect(one.body).toMatchObject({ section: 'unstaged', path: 'a.txt', truncated: false });
    expect((await call('GET', `${changes(conv)}/file?section=unstaged&path=../etc/passwd`)).status).toBe(404);

    // Bad comment bodies are refused with what was wrong, and reach nobody.
    const requests = mock.requests.length;
    for (const [comments, says] of [
      [[], /"comments" must be a list of 1-100 comments/],
      [[{ path: 'a.txt', section: 'unstaged', side: 'left', line: 3, text: 'x' }], /comments\[0\]\.side must be/],
      [[{ path: 'a.txt', section: 'unstaged', side: 'new', line: 0, text: 'x' }], /comments\[0\]\.line/],
      [[{ path: 'a.txt', section: 'elsewhere', side: 'new', line: 1, text: 'x' }], /comments\[0\]\.section/],
    ] as const) {
      const r = await call('POST', `${changes(conv)}/comments`, { comments });
      expect(r.status).toBe(400);
      expect(r.body.error.message).toMatch(says);
    }
    expect(mock.requests.length).toBe(requests);

    // A comment on line 3 (GAMMA, new side) and on b.txt's removed line: one message, through intake.
    const w = gw.watch(conv);
    await w.ready;
    const sent = await call('POST', `${changes(conv)}/comments`, {
      comments: [
        { path: 'a.txt', section: 'unstaged', side: 'new', line: 3, text: 'Keep gamma lowercase. tag:cmt' },
        { path: 'b.txt', section: 'unstaged', side: 'old', line: 2, text: 'Why drop two?' },
      ],
    });
    expect(sent.status).toBe(202);
    expect(sent.body.disposition).toBe('turn');
    await w.waitReply(sent.body.messageId, 'reply', budget);
    const asked = mock.mainRequests().filter((r) => r.lastUserText.includes('Keep gamma lowercase'));
    expect(asked).toHaveLength(1);
    const text = asked[0]!.lastUserText;
    const [open, close] = [`<<<${MARKER_OPEN} `, `<<<${MARKER_CLOSE} `];
    expect([times(text, open), times(text, close)]).toEqual([1, 1]);
    const inside = text.slice(text.indexOf(open), text.indexOf(close));
    expect(inside).toContain('1. a.txt, line 3\n> +GAMMA\nKeep gamma lowercase. tag:cmt');
    expect(inside).toContain('2. b.txt, line 2 (before the change)\n> -two\nWhy drop two?');
    expect(gw.gw.services.store.message(sent.body.messageId)?.text).toContain('Review comments on your changes');

    // A turn runs in the worktree (held on a gate file): every action is refused, nothing changes.
    const gate = path.join(tempDir('gate'), 'open');
    const held = await gw.post(conv, `[[bash:until test -f ${gate}; do sleep 0.1; done; echo released]] tag:held`);
    const lane = gw.gw.services.conversations.lane(`web:${conv}`);
    const store = gw.gw.services.store;
    await waitUntil(() => store.message(held.messageId)?.state === 'running' && lane.busy(), budget);
    expect((await call('GET', changes(conv))).body.busy).toBe(true);
    for (const [action, body] of [
      ['commit', { message: 'too early' }],
      ['merge', {}],
      ['push', {}],
    ] as const) {
      const r = await call('POST', `${changes(conv)}/${action}`, body);
      expect([r.status, r.body.error.code]).toEqual([409, 'REVIEW_BUSY']);
    }
    const preview = await call('GET', `${changes(conv)}/discard`);
    const refused = await call('POST', `${changes(conv)}/discard`, { confirm: preview.body.token });
    expect([refused.status, refused.body.error.code]).toEqual([409, 'REVIEW_BUSY']);
    expect(runGit(wt, 'log', '--format=%s', '-1')).toBe('files');
    expect(read(wt, 'src/parser.ts')).toContain('parse');
    fs.writeFileSync(gate, '');
    await w.waitReply(held.messageId, 'reply', budget);
    await waitUntil(() => !lane.busy(), budget);

    const empty = await call('POST', `${changes(conv)}/commit`, { message: '  \n' });
    expect([empty.status, empty.body.error.code]).toEqual([400, 'REVIEW_EMPTY_MESSAGE']);
    const c = await call('POST', `${changes(conv)}/commit`, { message: 'Uppercase gamma, drop two, add a parser' });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ branch: `rudder/web/${conv}`, files: 3 });
    expect((await call('GET', changes(conv))).body.changes.base).toMatchObject({ ahead: 1, behind: 0 });

    // Someone commits a conflicting change to a.txt on the base: the merge stops, names it, and changes nothing.
    write(repo, 'a.txt', A_TXT.replace('gamma', 'gamma on main'));
    const baseHead = commitAll(repo, 'main edits gamma');
    const conflict = await call('POST', `${changes(conv)}/merge`, {});
    expect(conflict.status).toBe(200);
    expect(conflict.body).toMatchObject({ kind: 'conflict', files: ['a.txt'], clean: true });
    expect(runGit(repo, 'rev-parse', 'HEAD')).toBe(baseHead);
    expect(statusLines(repo)).toEqual([]);
    expect(fs.existsSync(path.join(repo, '.git', 'MERGE_HEAD'))).toBe(false);
    runGit(repo, 'reset', '-q', '--hard', 'HEAD~1');

    const merged = await call('POST', `${changes(conv)}/merge`, {});
    expect(merged.body).toMatchObject({ kind: 'fast-forward', to: c.body.sha, commits: 1 });
    expect(runGit(repo, 'log', '--format=%s', '-2').split('\n')).toEqual([
      'Uppercase gamma, drop two, add a parser',
      'files',
    ]);
    expect(read(repo, 'src/parser.ts')).toBe('export const parse = (s: string) => s;\n');

    const pushed = await call('POST', `${changes(conv)}/push`, {});
    expect(pushed.body).toMatchObject({ remote: 'origin', url: bare, kind: 'created', head: c.body.sha });
    expect(runGit(bare, 'rev-parse', `refs/heads/rudder/web/${conv}`)).toBe(c.body.sha);
    const base = await call('POST', `${changes(conv)}/push`, { which: 'base' });
    expect(base.body).toMatchObject({ branch: 'main', kind: 'created' });
    expect(runGit(bare, 'log', '--format=%s', '-1', 'main')).toBe('Uppercase gamma, drop two, add a parser');

    // A pull request: gh is there and logged in; the branch is pushed (already there), then gh opens it.
    expect((await call('GET', `${changes(conv)}/pull-request`)).body).toEqual({ available: true });
    const pr = await call('POST', `${changes(conv)}/pull-request`, { title: 'Parser' });
    expect(pr.body).toEqual({
      opened: true,
      url: 'https://github.com/example/repo/pull/7',
      branch: `rudder/web/${conv}`,
      base: 'main',
    });
    const ghCalls = fs
      .readFileSync(ghLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).args);
    expect(ghCalls.at(-1)).toEqual([
      'pr',
      'create',
      '--head',
      `rudder/web/${conv}`,
      '--base',
      'main',
      '--title',
      'Parser',
      '--body',
      '',
    ]);

    // Every action that ran is in the conversation's history, in order; the refused ones never ran.
    const history = await call('GET', `/api/conversations/${conv}/messages`);
    const reviews = history.body.reviews.map((r: any) => [r.action, r.ok, r.by]);
    expect(reviews).toEqual([
      ['commit', true, 'web:owner'],
      ['merge', false, 'web:owner'],
      ['merge', true, 'web:owner'],
      ['push', true, 'web:owner'],
      ['push', true, 'web:owner'],
      ['push', true, 'web:owner'],
      ['pull-request', true, 'web:owner'],
    ]);
    expect(history.body.reviews[1].summary).toMatch(/stopped on a conflict in a\.txt; nothing was changed/);
    expect(w.of('review').map((e) => e.data.action)).toEqual([
      'commit',
      'merge',
      'merge',
      'push',
      'push',
      'push',
      'pull-request',
    ]);
    // The next tests' conversations start from the base as it was.
    runGit(repo, 'reset', '-q', '--hard', 'HEAD~1');
  });

  it('discards uncommitted changes (ignored files too) only with the token of the list it showed', async () => {
    const { conv, wt } = await editedConversation();
    write(wt, '.env', 'SECRET=1\n');
    const preview = await call('GET', `${changes(conv)}/discard`);
    expect(preview.body.files.map((f: any) => [f.path, f.state]).sort()).toEqual([
      ['.env', 'ignored'],
      ['a.txt', 'modified'],
      ['b.txt', 'modified'],
      ['src/parser.ts', 'untracked'],
    ]);
    const without = await call('POST', `${changes(conv)}/discard`, {});
    expect([without.status, without.body.error.code]).toEqual([400, 'BAD_REQUEST']);
    const wrong = await call('POST', `${changes(conv)}/discard`, { confirm: '0123456789abcdef' });
    expect([wrong.status, wrong.body.error.code]).toEqual([409, 'REVIEW_CONFIRM_STALE']);
    // The list changed after it was shown: its token no longer discards anything.
    write(wt, 'late.txt', 'written after the list\n');
    const stale = await call('POST', `${changes(conv)}/discard`, { confirm: preview.body.token });
    expect(stale.body.error.code).toBe('REVIEW_CONFIRM_STALE');
    expect(read(wt, 'a.txt')).toContain('GAMMA');

    const again = await call('GET', `${changes(conv)}/discard`);
    const done = await call('POST', `${changes(conv)}/discard`, { confirm: again.body.token });
    expect(done.status).toBe(200);
    expect(done.body.removed).toHaveLength(5);
    expect(statusLines(wt)).toEqual([]);
    expect(read(wt, 'a.txt')).toBe(A_TXT);
    expect(fs.existsSync(path.join(wt, '.env'))).toBe(false);
  });

  it('holds a message that arrives while a commit runs, and runs it once the commit is done', async () => {
    const { conv, wt } = await editedConversation();
    // A pre-commit hook (worktrees share the repository's hooks) holds the commit until the gate opens.
    const gate = path.join(tempDir('gate'), 'open');
    const hook = path.join(repo, '.git', 'hooks', 'pre-commit');
    fs.writeFileSync(hook, `#!/bin/sh\nwhile [ ! -f ${gate} ]; do sleep 0.1; done\n`, { mode: 0o755 });
    try {
      const committing = call('POST', `${changes(conv)}/commit`, { message: 'Held by a hook' });
      await waitUntil(() => gw.gw.services.treeActions.acting(wt) === 'commit', budget);
      const w = gw.watch(conv);
      await w.ready;
      const m = await gw.post(conv, 'Are you there? tag:after-commit');
      expect(m.disposition).toBe('queued');
      const row = gw.gw.services.store.message(m.messageId)!;
      expect(row.state).toBe('queued');
      expect(mock.requests.some((r) => r.lastUserText.includes('tag:after-commit'))).toBe(false);
      const ack = await w.wait('ack', (d) => d.messageId === m.messageId && d.kind === 'queued');
      expect(ack.data.note).toMatch(/waiting for the commit of this worktree to end/);

      fs.writeFileSync(gate, '');
      const done = await committing;
      expect(done.body).toMatchObject({ files: 3, summary: 'Held by a hook' });
      await w.waitReply(m.messageId, 'reply', budget);
      const committedAt = w.of('review')[0]!.data.at as number;
      const asked = mock.mainRequests().filter((r) => r.lastUserText.includes('tag:after-commit'));
      expect(asked).toHaveLength(1);
      expect(asked[0]!.at).toBeGreaterThanOrEqual(committedAt);
    } finally {
      fs.rmSync(hook, { force: true });
    }
  });

  it('shows a project without worktrees read-only, and cuts a long quoted line in a comment', async () => {
    const made = await call('POST', '/api/conversations', { project: 'plain' });
    const conv = made.body.id as string;
    write(plain, 'a.txt', A_TXT.replace('gamma', 'x'.repeat(5000)));
    const got = await call('GET', changes(conv));
    expect(got.body).toMatchObject({ project: 'plain', readOnly: true, busy: false });
    expect(got.body.changes.base).toBeUndefined();
    expect(got.body.changes.sections.unstaged.files.map((f: any) => [f.path, f.added, f.deleted])).toEqual([
      ['a.txt', 1, 1],
    ]);
    for (const [method, action, body] of [
      ['POST', 'commit', { message: 'no' }],
      ['POST', 'merge', {}],
      ['GET', 'discard', undefined],
    ] as const) {
      const r = await call(method, `${changes(conv)}/${action}`, body);
      expect([action, r.status, r.body.error.code]).toEqual([action, 409, 'REVIEW_READ_ONLY']);
    }
    expect(read(plain, 'a.txt')).toContain('x'.repeat(5000));

    const w = gw.watch(conv);
    await w.ready;
    const sent = await call('POST', `${changes(conv)}/comments`, {
      comments: [{ path: 'a.txt', section: 'unstaged', side: 'new', line: 3, text: 'Too long. tag:long-line' }],
    });
    await w.waitReply(sent.body.messageId, 'reply', budget);
    const text = mock.mainRequests().find((r) => r.lastUserText.includes('tag:long-line'))!.lastUserText;
    expect(text).toContain(`> +${'x'.repeat(399)} …\nToo long. tag:long-line`);
    expect(text).not.toContain('x'.repeat(400));
  });
});
