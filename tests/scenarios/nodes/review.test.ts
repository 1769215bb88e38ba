/**
 * The review of a project that lives on a node, end to end (real NATS, the real CLI on the node
 * against the mock Messages API, real git on the node's repository): the agent edits its worktree
 * on the node; the front's HTTP API shows the changes and one file's diff, a line comment reaches
 * the model once, quoting the line, /diff lists them; commit, merge and push land in the node's
 * repository. The busy guard is kept on the node: while a turn runs there an action is refused,
 * by the node itself too (asked over NATS as the front asks); a turn that arrives while a commit
 * runs there waits for it (in the front's queue, said as for a local tree; on the node, for an
 * action the front's lane did not know of). Another node cannot hear those queries. A lost node answers
 * AGENT_UNREACHABLE, saying what to do.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeJoinToken, frontSeed } from '../../../src/nodes/credentials.js';
import { connectNats } from '../../../src/nodes/transport/connection.js';
import { encode, type QueryAnswer, querySubject } from '../../../src/nodes/wire.js';
import { silentLogger } from '../../../src/ops/logger.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { runGit } from '../../support/git-rig.js';
import type { MockApi } from '../../support/mock-anthropic.js';
import { type Cluster, conversationIn, upNodes, useCluster } from '../../support/nodes-rig.js';
import { A_TXT, agentEdits, B_TXT, read, statusLines, write } from '../../support/review-rig.js';

let mock: MockApi;
let cl: Cluster;
/** The project's repository on the node's machine, and its bare remote. */
let repo: string;
let bare: string;

// beta is only a key (added, never started): another node's rights, to show it cannot hear alpha's review.
useCluster(
  [
    { name: 'alpha', projects: ['repo'] },
    { name: 'beta', projects: ['other'] },
  ],
  (s) => void ({ mock, cl } = s),
  { startNodes: false },
);

beforeAll(async () => {
  const node = cl.nodes.alpha!;
  repo = fs.realpathSync(node.dirs.repo!);
  runGit(repo, 'init', '-q', '-b', 'main');
  runGit(repo, 'config', 'user.name', 'Node Review');
  runGit(repo, 'config', 'user.email', 'node-review@example.com');
  write(repo, 'a.txt', A_TXT);
  write(repo, 'b.txt', B_TXT);
  runGit(repo, 'add', '.');
  runGit(repo, 'commit', '-qm', 'files');
  bare = fs.realpathSync(tempDir('bare'));
  runGit(bare, 'init', '-q', '--bare', '-b', 'main');
  runGit(repo, 'remote', 'add', 'origin', bare);
  // The node's own config gives its project worktrees and runs its hooks (the front only pins the project to it).
  const config = JSON.parse(fs.readFileSync(node.configFile, 'utf8'));
  config.projects.repo = { path: repo, worktrees: true };
  config.review = { runHooks: true };
  fs.writeFileSync(node.configFile, JSON.stringify(config, null, 2));
  await node.start();
  await waitUntil(async () => (await upNodes(cl.front)).includes('alpha'), cl.budget());
}, 240_000);

async function call(method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await cl.front.api(method, p, body);
  return { status: res.status, body: await res.json() };
}

const changes = (conv: string) => `/api/conversations/${conv}/changes`;

/** The conversation's worktree on the node, found by its branch in the node's repository. */
function worktreeOf(conv: string): string {
  const list = runGit(repo, 'worktree', 'list', '--porcelain').split('\n\n');
  const entry = list.find((e) => e.includes(`branch refs/heads/rudder/web/${conv}`));
  return entry ? entry.split('\n')[0]!.replace(/^worktree /, '') : '';
}

/** A conversation in the node's project whose agent made the three edits in its worktree there. */
async function editedConversation(): Promise<{ conv: string; wt: string }> {
  const conv = await conversationIn(cl.front, 'repo');
  expect((await call('GET', changes(conv))).body.error.code).toBe('REVIEW_NO_WORKTREE');
  agentEdits(mock, () => worktreeOf(conv));
  const w = cl.front.watch(conv);
  await w.ready;
  const m = await cl.front.post(conv, 'Uppercase gamma, drop two, add a parser. tag:review-edit');
  await w.waitReply(m.messageId, 'reply', cl.budget());
  mock.setScript(undefined);
  w.close();
  return { conv, wt: worktreeOf(conv) };
}

/** A conversation in the node's project whose agent wrote note.txt in its worktree there (a Bash tool call). */
async function notedConversation(tag: string): Promise<{ conv: string; wt: string }> {
  const conv = await conversationIn(cl.front, 'repo');
  const w = cl.front.watch(conv);
  await w.ready;
  const m = await cl.front.post(conv, `[[bash:echo ${tag} > note.txt]] tag:${tag}`);
  await w.waitReply(m.messageId, 'reply', cl.budget());
  w.close();
  const wt = worktreeOf(conv);
  expect(read(wt, 'note.txt')).toBe(`${tag}\n`);
  return { conv, wt };
}

/**
 * A pre-commit hook in the node's repository (its worktrees share it; the node runs hooks) that holds every
 * commit until open() (which says when it opened).
 */
function holdCommits(): { open(): number; remove(): void } {
  const gate = path.join(tempDir('gate'), 'open');
  const hook = path.join(repo, '.git', 'hooks', 'pre-commit');
  fs.writeFileSync(hook, `#!/bin/sh\nwhile [ ! -f ${gate} ]; do sleep 0.1; done\n`, { mode: 0o755 });
  return {
    open: () => {
      const at = Date.now();
      fs.writeFileSync(gate, '');
      return at;
    },
    remove: () => fs.rmSync(hook, { force: true }),
  };
}

/** A connection to the cluster's NATS with the front's own key (what the front sends, the test can send). */
function frontConnection(): Promise<NatsConnection> {
  return connectNats({
    url: `nats://127.0.0.1:${cl.front.natsPort}`,
    seed: frontSeed(cl.frontHome),
    who: 'front',
    log: silentLogger(),
  });
}

/** A review query straight to the node, as the front sends it (the front's own key). */
async function askNode(nc: NatsConnection, q: Record<string, unknown>): Promise<QueryAnswer> {
  const m = await nc.request(querySubject('alpha'), encode(q as never), { timeout: cl.budget() });
  return JSON.parse(new TextDecoder().decode(m.data)) as QueryAnswer;
}

describe("the review of a node's project", { timeout: 300_000 }, () => {
  it('diff, a line comment, /diff, commit, merge and push, each run in the node’s repository', async () => {
    const { conv, wt } = await editedConversation();
    expect(path.dirname(wt)).toBe(`${repo}.rudder-worktrees`);
    expect(read(wt, 'a.txt')).toBe(A_TXT.replace('gamma', 'GAMMA'));

    const got = await call('GET', changes(conv));
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ project: 'repo', readOnly: false, busy: false, acting: null });
    expect(got.body.push).toEqual({ remote: 'origin' });
    const set = got.body.changes;
    expect(set).toMatchObject({ branch: `rudder/web/${conv}`, base: { name: 'main', ahead: 0, behind: 0 } });
    const files = [...set.sections.unstaged.files, ...set.sections.untracked.files];
    expect(files.map((f: any) => [f.section, f.path, f.status])).toEqual([
      ['unstaged', 'a.txt', 'modified'],
      ['unstaged', 'b.txt', 'modified'],
      ['untracked', 'src/parser.ts', 'added'],
    ]);
    const one = await call('GET', `${changes(conv)}/file?section=unstaged&path=a.txt`);
    expect(one.status).toBe(200);
    expect(one.body.diff).toMatch(/^-gamma\n\+GAMMA$/m);
    expect((await call('GET', `${changes(conv)}/file?section=unstaged&path=../etc/passwd`)).body.error.code).toBe(
      'REVIEW_FILE_UNKNOWN',
    );

    // A comment on line 3 (GAMMA, new side): one message to the agent on the node, quoting the line.
    const w = cl.front.watch(conv);
    await w.ready;
    const sent = await call('POST', `${changes(conv)}/comments`, {
      comments: [{ path: 'a.txt', section: 'unstaged', side: 'new', line: 3, text: 'Keep gamma lowercase. tag:ncmt' }],
    });
    expect(sent.status).toBe(202);
    await w.waitReply(sent.body.messageId, 'reply', cl.budget());
    const asked = mock.mainRequests().filter((r) => r.lastUserText.includes('Keep gamma lowercase'));
    expect(asked).toHaveLength(1);
    expect(asked[0]!.lastUserText).toMatch(/\+GAMMA/);

    const diff = await cl.front.post(conv, '/diff');
    const shown = await w.waitReply(diff.messageId, undefined, cl.budget());
    expect(String(shown.data.text)).toMatch(/a\.txt[\s\S]*b\.txt[\s\S]*src\/parser\.ts/);

    const commit = await call('POST', `${changes(conv)}/commit`, { message: 'Uppercase gamma on the node' });
    expect(commit.status).toBe(200);
    expect(commit.body).toMatchObject({ branch: `rudder/web/${conv}`, files: 3 });
    expect(runGit(wt, 'log', '--format=%s', '-1')).toBe('Uppercase gamma on the node');
    expect(statusLines(wt)).toEqual([]);

    const merged = await call('POST', `${changes(conv)}/merge`, {});
    expect(merged.body).toMatchObject({ kind: 'fast-forward', to: commit.body.sha, commits: 1 });
    expect(runGit(repo, 'log', '--format=%s', '-1', 'main')).toBe('Uppercase gamma on the node');
    expect(read(repo, 'src/parser.ts')).toBe('export const parse = (s: string) => s;\n');

    const pushed = await call('POST', `${changes(conv)}/push`, {});
    expect(pushed.body).toMatchObject({ remote: 'origin', kind: 'created', head: commit.body.sha });
    expect(runGit(bare, 'rev-parse', `refs/heads/rudder/web/${conv}`)).toBe(commit.body.sha);

    // Every action is in the conversation's history on the front, as for a local project.
    await waitUntil(() => w.of('review').length >= 3, cl.budget());
    expect(w.of('review').map((e) => [e.data.action, e.data.ok])).toEqual([
      ['commit', true],
      ['merge', true],
      ['push', true],
    ]);
    w.close();
  });

  it('refuses an action while a turn runs on the node, by the node’s own guard too', async () => {
    const { conv, wt } = await notedConversation('note-busy');
    const head = runGit(wt, 'rev-parse', 'HEAD');
    const gate = path.join(tempDir('gate'), 'open');
    const w = cl.front.watch(conv);
    await w.ready;
    const held = await cl.front.post(
      conv,
      `[[bash:until test -f ${gate}; do sleep 0.1; done; echo released]] tag:nheld`,
    );
    const nc = await frontConnection();
    try {
      const q = { type: 'review', conversationId: `web:${conv}`, project: 'repo' };
      // The node itself sees the turn (not only the front's lane) and refuses the commit there.
      await waitUntil(async () => {
        const v = await askNode(nc, { ...q, step: 'view' });
        return v.ok && 'review' in v && (v.review as { busy: boolean }).busy;
      }, cl.budget());
      const direct = await askNode(nc, { ...q, step: 'commit', message: 'too early' });
      expect(direct).toMatchObject({ ok: false, error: { code: 'REVIEW_BUSY' } });
      const viaFront = await call('POST', `${changes(conv)}/commit`, { message: 'too early' });
      expect([viaFront.status, viaFront.body.error.code]).toEqual([409, 'REVIEW_BUSY']);
      expect((await call('GET', changes(conv))).body.busy).toBe(true);
      expect(runGit(wt, 'rev-parse', 'HEAD')).toBe(head);
    } finally {
      await nc.close();
    }
    fs.writeFileSync(gate, '');
    await w.waitReply(held.messageId, 'reply', cl.budget());
    await waitUntil(async () => (await call('GET', changes(conv))).body.busy === false, cl.budget());
    const commit = await call('POST', `${changes(conv)}/commit`, { message: 'After the turn' });
    expect(commit.status).toBe(200);
    expect(runGit(wt, 'log', '--format=%s', '-1')).toBe('After the turn');
    w.close();
  });

  it('holds a turn that arrives while a commit runs on the node, and runs it once the commit is done', async () => {
    const { conv, wt } = await notedConversation('note-held');
    const hook = holdCommits();
    try {
      const committing = call('POST', `${changes(conv)}/commit`, { message: 'Held by a hook' });
      await waitUntil(async () => (await call('GET', changes(conv))).body.acting === 'commit', cl.budget());
      const w = cl.front.watch(conv);
      await w.ready;
      // The front knows the action it sent: the message waits in its queue, said as for a local tree.
      const m = await cl.front.post(conv, 'Are you there? tag:after-node-commit');
      expect(m.disposition).toBe('queued');
      const ack = await w.wait('ack', (d) => d.messageId === m.messageId && d.kind === 'queued');
      expect(ack.data.note).toMatch(/waiting for the commit of this worktree to end/);
      expect(mock.requests.some((r) => r.lastUserText.includes('tag:after-node-commit'))).toBe(false);

      const opened = hook.open();
      const done = await committing;
      expect(done.body).toMatchObject({ files: 1, summary: 'Held by a hook' });
      await w.waitReply(m.messageId, 'reply', cl.budget());
      const asked = mock.mainRequests().filter((r) => r.lastUserText.includes('tag:after-node-commit'));
      expect(asked).toHaveLength(1);
      expect(asked[0]!.at).toBeGreaterThanOrEqual(opened);
      expect(runGit(wt, 'log', '--format=%s', '-1')).toBe('Held by a hook');
      w.close();
    } finally {
      hook.remove();
    }
  });

  it('the node itself holds a turn that reaches it while an action runs there', async () => {
    const { conv, wt } = await notedConversation('note-node-held');
    const hook = holdCommits();
    const nc = await frontConnection();
    try {
      // Asked straight (the front's lane does not know of it): only the node's guard stands.
      const q = { type: 'review', conversationId: `web:${conv}`, project: 'repo' };
      const committing = askNode(nc, { ...q, step: 'commit', message: 'Held on the node' });
      await waitUntil(async () => (await call('GET', changes(conv))).body.acting === 'commit', cl.budget());
      const w = cl.front.watch(conv);
      await w.ready;
      const before = cl.nodes.alpha!.log().split('the turn waits for a review action').length;
      const m = await cl.front.post(conv, 'Still there? tag:after-direct-commit');
      await waitUntil(
        () => cl.nodes.alpha!.log().split('the turn waits for a review action').length > before,
        cl.budget(),
      );
      expect(mock.requests.some((r) => r.lastUserText.includes('tag:after-direct-commit'))).toBe(false);

      const opened = hook.open();
      expect(await committing).toMatchObject({ ok: true, review: { files: 1, summary: 'Held on the node' } });
      await w.waitReply(m.messageId, 'reply', cl.budget());
      const asked = mock.mainRequests().filter((r) => r.lastUserText.includes('tag:after-direct-commit'));
      expect(asked).toHaveLength(1);
      expect(asked[0]!.at).toBeGreaterThanOrEqual(opened);
      expect(runGit(wt, 'log', '--format=%s', '-1')).toBe('Held on the node');
      w.close();
    } finally {
      hook.remove();
      await nc.close();
    }
  });

  it("another node cannot hear alpha's review queries (its rights are its own subjects)", async () => {
    const { conv } = await notedConversation('note-rights');
    const beta = decodeJoinToken(cl.nodes.beta!.token);
    const nc = await connectNats({ url: beta.url, seed: beta.seed, who: 'beta', log: silentLogger() });
    try {
      let refused: Error | undefined;
      let heard = 0;
      nc.subscribe(querySubject('alpha'), {
        callback: (err) => {
          if (err) refused = err;
          else heard++;
        },
      });
      await waitUntil(() => refused !== undefined, cl.budget());
      expect(refused!.message).toMatch(/Permissions Violation/);
      const got = await call('GET', changes(conv));
      expect(got.status).toBe(200);
      expect(got.body.changes.sections.untracked.files.map((f: any) => f.path)).toEqual(['note.txt']);
      expect(heard).toBe(0);
    } finally {
      await nc.close();
    }
  });

  it('a lost node answers AGENT_UNREACHABLE, saying what to do', async () => {
    const conv = await conversationIn(cl.front, 'repo');
    await cl.nodes.alpha!.stop();
    await waitUntil(async () => !(await upNodes(cl.front)).includes('alpha'), cl.budget());
    const got = await call('GET', changes(conv));
    expect(got.status).toBe(503);
    expect(got.body.error.code).toBe('AGENT_UNREACHABLE');
    expect(got.body.error.message).toMatch(/node alpha .*cannot be reached.*Start `rudder node` on that machine/);
  });
});
