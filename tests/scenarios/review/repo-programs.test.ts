/**
 * The Changes view over HTTP on a project the agent can write (real git, the gateway in process):
 * reading its changes runs no program the repository's own config names (a clean filter that
 * `.gitattributes` picks), and a line comment on a path that is not in the diff is refused as the
 * file route refuses it, never sent to the agent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { gitRepo, runGit } from '../../support/git-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let repo: string;
const markers = tempDir('markers');

beforeAll(async () => {
  mock = await startMockApi();
  repo = gitRepo();
  fs.writeFileSync(path.join(repo, '.gitattributes'), '*.txt filter=evil\n');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  runGit(repo, 'add', '.');
  runGit(repo, 'commit', '-qm', 'text');
  // What an agent could write into the project's own config, and a file it changed.
  runGit(repo, 'config', 'filter.evil.clean', `touch '${path.join(markers, 'clean-ran')}'; cat`);
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo\n');
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    projects: { repo: { path: repo } },
  });
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

async function call(method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await gw.api(method, p, body);
  return { status: res.status, body: await res.json() };
}

async function conversation(): Promise<string> {
  return (await call('POST', '/api/conversations', { project: 'repo' })).body.id as string;
}

describe('the Changes view and what the repository names', () => {
  it("GET …/changes shows the change without running the repository's clean filter", async () => {
    const conv = await conversation();
    const r = await call('GET', `/api/conversations/${conv}/changes`);
    expect(r.status).toBe(200);
    const unstaged = r.body.changes.sections.unstaged.files as Array<{ path: string; diff: string }>;
    expect(unstaged.map((f) => f.path)).toEqual(['a.txt']);
    expect(unstaged[0]!.diff).toContain('+two');
    expect(fs.existsSync(path.join(markers, 'clean-ran'))).toBe(false);
  });

  it('refuses a comment on a path not in the diff, as the file route does; nothing reaches the agent', async () => {
    const conv = await conversation();
    const before = mock.mainRequests().length;
    for (const p of ['../../x', '/etc/passwd', 'nowhere.txt']) {
      const file = await call('GET', `/api/conversations/${conv}/changes/file?section=unstaged&path=${encodeURI(p)}`);
      const comment = { path: p, section: 'unstaged', side: 'new', line: 1, text: 'look here' };
      const sent = await call('POST', `/api/conversations/${conv}/changes/comments`, { comments: [comment] });
      expect([sent.status, sent.body.error?.code]).toEqual([file.status, file.body.error?.code]);
      expect(sent.body.error.code).toBe('REVIEW_FILE_UNKNOWN');
    }
    // One bad comment refuses the batch: the good one is not sent alone.
    const good = { path: 'a.txt', section: 'unstaged', side: 'new', line: 2, text: 'fine' };
    const bad = { path: '../../x', section: 'unstaged', side: 'new', line: 1, text: 'not fine' };
    const mixed = await call('POST', `/api/conversations/${conv}/changes/comments`, { comments: [good, bad] });
    expect(mixed.status).toBe(404);
    const history = await call('GET', `/api/conversations/${conv}/messages`);
    expect(JSON.stringify(history.body)).not.toContain('look here');
    expect(mock.mainRequests().length).toBe(before);
    // A comment on a line of the diff is taken.
    const taken = await call('POST', `/api/conversations/${conv}/changes/comments`, { comments: [good] });
    expect(taken.status).toBe(202);
  });
});
