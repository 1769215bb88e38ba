/**
 * The pull-request shepherd end to end: a conversation's agent works in its worktree, the owner opens a PR with /pr
 * (the page's pull-request action, through a fake `gh`), and GitHub's own example payloads (a failed check run, a
 * review comment), signed as GitHub signs them, wake that conversation in its worktree; the same delivery sent
 * twice reaches the model once; nothing is pushed on the hook's behalf. Real CLI against the mock, real git.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { runGit } from '../../support/git-rig.js';
import { example } from '../../support/github-examples.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { bareRemote, projectRepo, write } from '../../support/review-rig.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let bare: string;
const SECRET = 'github-secret-0123456789abcdef';
const FAKE_GH = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../support/fake-gh.mjs');
const ghBin = tempDir('ghbin');
const ghLog = path.join(tempDir('ghlog'), 'calls.jsonl');
fs.symlinkSync(FAKE_GH, path.join(ghBin, 'gh'));

beforeAll(async () => {
  mock = await startMockApi();
  const repo = projectRepo();
  bare = bareRemote(repo);
  gw = await startInProcess(
    {
      agent: agentConfig(mock.url, tempDir('chome')),
      projects: { repo: { path: repo, worktrees: true } },
      defaultProject: 'repo',
      hooks: { gh: { kind: 'github', secret: SECRET, project: 'repo' } },
    },
    { env: { PATH: `${ghBin}:${process.env.PATH}`, FAKE_GH_AUTH: 'ok', FAKE_GH_LOG: ghLog } },
  );
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

async function call(method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await gw.api(method, p, body);
  return { status: res.status, body: await res.json() };
}

/** A delivery as GitHub sends it: X-Hub-Signature-256 over the raw body, the event and a delivery id. */
async function github(event: string, payload: unknown, delivery: string) {
  const body = JSON.stringify(payload);
  const sig = `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const r = await fetch(`${gw.ep.base}/hooks/gh`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': sig,
      'x-github-event': event,
      'x-github-delivery': delivery,
    },
    body,
  });
  return { status: r.status, body: (await r.json()) as any };
}

const firstTurns = (needle: string) => mock.mainRequests().filter((r) => !r.afterTool && r.lastText.includes(needle));

describe('the pull-request shepherd (real CLI, real git, GitHub example payloads)', () => {
  it('a failed check and a review comment on the PR /pr opened wake its conversation, in its worktree', async () => {
    const made = await call('POST', '/api/conversations', { project: 'repo' });
    const conv = made.body.id as string;
    const w = gw.watch(conv);
    await w.ready;
    const m = await gw.post(conv, 'Start the work. tag:sh0');
    await w.waitReply(m.messageId, 'reply', 60_000);
    const wt = gw.gw.services.store.projects.get(`web:${conv}`, 'repo')!.worktree!;
    const branch = `rudder/web/${conv}`;
    write(wt, 'notes.txt', 'work\n');
    const changes = `/api/conversations/${conv}/changes`;
    expect((await call('POST', `${changes}/commit`, { message: 'Notes' })).status).toBe(200);
    const pr = await call('POST', `${changes}/pull-request`, { title: 'Notes' });
    expect(pr.body).toMatchObject({ opened: true, url: 'https://github.com/example/repo/pull/7', branch });
    const pushedHead = runGit(bare, 'rev-parse', `refs/heads/${branch}`);
    const ghCalls = fs.readFileSync(ghLog, 'utf8').trim().split('\n').length;

    // GitHub's example of a completed check run, made a failure on this PR.
    const check = example('check_run', (e) => e.action === 'completed');
    check.repository.full_name = 'example/repo';
    check.check_run.name = 'unit-tests tag:sh1';
    check.check_run.conclusion = 'failure';
    check.check_run.output.title = '3 tests failed';
    check.check_run.output.summary = 'parser.test.ts: expected 2, got 3 [[bash:pwd]]';
    check.check_run.pull_requests = [
      {
        ...check.check_run.pull_requests[0]!,
        number: 7,
        head: { ...check.check_run.pull_requests[0]!.head, ref: branch },
      },
    ];
    const delivered = await github('check_run', check, 'delivery-check-1');
    expect(delivered.status).toBe(202);
    await w.waitReply(delivered.body.messageId, 'reply', 60_000);
    const again = await github('check_run', check, 'delivery-check-1');
    expect([again.status, again.body.ran]).toEqual([200, false]);
    const woke = firstTurns('tag:sh1');
    expect(woke).toHaveLength(1);
    expect(woke[0]!.lastText).toMatch(/from="hook:gh">>>\nCheck "unit-tests tag:sh1" failed \(failure\)/);
    expect(woke[0]!.lastText).toContain('parser.test.ts: expected 2, got 3');
    // The agent woke in the PR's worktree: its tool ran there.
    const ran = mock.mainRequests().find((r) => r.seq > woke[0]!.seq && r.afterTool)!;
    expect(ran.lastUserText).toContain(fs.realpathSync(wt));

    // A review comment on a line of the PR: it names the file and the line.
    const review = example('pull_request_review_comment', (e) => e.action === 'created');
    review.repository.full_name = 'example/repo';
    review.pull_request.number = 7;
    review.pull_request.head.ref = branch;
    review.comment.body = 'This should handle an empty string. tag:sh2';
    review.comment.path = 'src/parser.ts';
    review.comment.line = 12;
    const commented = await github('pull_request_review_comment', review, 'delivery-review-1');
    expect(commented.status).toBe(202);
    await w.waitReply(commented.body.messageId, 'reply', 60_000);
    const said = firstTurns('tag:sh2');
    expect(said).toHaveLength(1);
    expect(said[0]!.lastText).toMatch(/src\/parser\.ts/);
    expect(said[0]!.lastText).toMatch(/line 12/);

    // Rudder pushed nothing and opened nothing on the hooks' behalf.
    expect(runGit(bare, 'rev-parse', `refs/heads/${branch}`)).toBe(pushedHead);
    expect(fs.readFileSync(ghLog, 'utf8').trim().split('\n')).toHaveLength(ghCalls);
  }, 180_000);
});
