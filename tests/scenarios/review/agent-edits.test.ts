/**
 * The whole path on the real Claude Code CLI against the mock Messages API: the agent edits two
 * files and writes a new one in its conversation's worktree (Read/Edit/Write tool calls), the
 * review shows exactly those, refuses to commit while a turn runs there, then commit, merge and
 * push land the change on the base branch and the bare remote.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TreeActions } from '../../../src/projects/changes/tree-actions.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { runGit } from '../../support/git-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import {
  A_TXT,
  agentEdits,
  bareRemote,
  failure,
  projectRepo,
  read,
  runner,
  statusLines,
} from '../../support/review-rig.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let repo: string;
let bare: string;

beforeAll(async () => {
  mock = await startMockApi();
  repo = projectRepo();
  bare = bareRemote(repo);
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    projects: { repo: { path: repo, worktrees: true } },
  });
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

describe('reviewing the agent’s edits (real CLI)', () => {
  it('shows the edits and the new file, refuses while a turn runs, then commit, merge and push land them', async () => {
    const made = await gw.api('POST', '/api/conversations', { project: 'repo' });
    const conv = ((await made.json()) as { id: string }).id;
    const conversationId = `web:${conv}`;
    const store = gw.gw.services.store;
    const worktreeOf = () => store.projects.get(conversationId, 'repo')!.worktree!;
    agentEdits(mock, worktreeOf);
    const w = gw.watch(conv);
    await w.ready;
    const m = await gw.post(conv, 'Uppercase gamma, drop two, add a parser. tag:review-edit');
    await w.waitReply(m.messageId, 'reply', 90_000);
    const wt = worktreeOf();
    expect(path.dirname(wt)).toBe(`${repo}.rudder-worktrees`);
    // The edits are in the worktree, not in the project's checkout.
    expect(read(wt, 'a.txt')).toBe(A_TXT.replace('gamma', 'GAMMA'));
    expect(read(repo, 'a.txt')).toBe(A_TXT);

    const lane = gw.gw.services.conversations.lane(conversationId);
    const desk = new TreeActions({ run: runner() });
    const review = desk.for({ conversationId, dir: wt, projectDir: repo, worktree: true, busy: () => lane.busy() });
    const set = await review.changes();
    expect(set.branch).toBe(`rudder/web/${conv}`);
    expect(set.base).toMatchObject({ name: 'main', ahead: 0, behind: 0 });
    const shown = [...set.sections.unstaged.files, ...set.sections.untracked.files].map((f) => [
      f.section,
      f.path,
      f.status,
      f.added,
      f.deleted,
    ]);
    expect(shown).toEqual([
      ['unstaged', 'a.txt', 'modified', 1, 1],
      ['unstaged', 'b.txt', 'modified', 0, 1],
      ['untracked', 'src/parser.ts', 'added', 1, 0],
    ]);
    expect(set.sections.unstaged.files[0]!.diff).toMatch(/^-gamma\n\+GAMMA$/m);
    expect(set.sections.unstaged.files[1]!.diff).toMatch(/^ one\n-two\n three$/m);
    expect(set.sections.untracked.files[0]!.diff).toContain('+export const parse = (s: string) => s;');

    // A turn runs in the worktree (held on a gate file): every action is refused meanwhile.
    const gate = path.join(tempDir('gate'), 'open');
    const held = await gw.post(conv, `[[bash:until test -f ${gate}; do sleep 0.1; done; echo released]] tag:held`);
    await waitUntil(() => lane.busy(), 30_000);
    expect((await failure(review.commit('too early'))).code).toBe('REVIEW_BUSY');
    expect((await failure(review.merge())).code).toBe('REVIEW_BUSY');
    expect(runGit(wt, 'log', '--format=%s', '-1')).toBe('files');
    fs.writeFileSync(gate, '');
    await w.waitReply(held.messageId, 'reply', 60_000);
    await waitUntil(() => !lane.busy(), 30_000);

    const c = await review.commit('Uppercase gamma, drop two, add a parser');
    expect(c).toMatchObject({ branch: `rudder/web/${conv}`, files: 3 });
    expect(await review.merge()).toMatchObject({ kind: 'fast-forward', to: c.sha, commits: 1 });
    expect(runGit(repo, 'log', '--format=%s', '-1')).toBe('Uppercase gamma, drop two, add a parser');
    expect(read(repo, 'src/parser.ts')).toBe('export const parse = (s: string) => s;\n');
    expect(statusLines(repo)).toEqual([]);
    expect(await review.push()).toMatchObject({ remote: 'origin', url: bare, kind: 'created', head: c.sha });
    expect(runGit(bare, 'rev-parse', `refs/heads/rudder/web/${conv}`)).toBe(c.sha);
  });
});
