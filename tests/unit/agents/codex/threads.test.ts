/**
 * A project's Codex threads as thread/list answers them (agents/codex/threads.ts): the params that
 * filter by the project's directories, a listed thread as /sessions shows it, and the real pinned
 * binary against the mock, with threads of two directories in one CODEX_HOME.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { v2 } from '../../../../src/agents/codex/protocol/index.js';
import { codexHistory, pastThread, threadListParams } from '../../../../src/agents/codex/threads.js';
import { agentSchema } from '../../../../src/config/schema.js';
import { tempDir } from '../../../support/claude-rig.js';
import { CODEX_BIN, codexLaunch, trackCodex } from '../../../support/codex-rig.js';
import { type MockResponses, mockCodexConfig, startMockResponses } from '../../../support/mock-responses.js';

const codex = trackCodex();

describe('threadListParams', () => {
  it('asks for the threads of each directory as given and as resolved, newest change first', () => {
    const real = tempDir('threads-real');
    const link = path.join(tempDir('threads-link'), 'proj');
    fs.symlinkSync(real, link);
    const p = threadListParams([link, real], 10);
    expect(p.cwd).toEqual([...new Set([link, fs.realpathSync(real), real])]);
    expect(p).toMatchObject({ limit: 10, sortKey: 'updated_at' });
    expect(p.sourceKinds).toEqual(['cli', 'vscode', 'exec', 'appServer']);
    expect(p.includedThreadIds).toBeUndefined();
    expect(threadListParams([real], 1, ['t-1']).includedThreadIds).toEqual(['t-1']);
  });
});

describe('pastThread', () => {
  const thread = (over: Partial<v2.Thread>) => ({
    id: 't-1',
    preview: '',
    name: null,
    updatedAt: 1_700_000_000,
    ...over,
  });
  it('shows the title when the thread has one, else its first message; the time in ms', () => {
    expect(pastThread(thread({ preview: 'fix the bug', name: 'Bug hunt' }) as v2.Thread)).toEqual({
      id: 't-1',
      updatedAt: 1_700_000_000_000,
      preview: 'Bug hunt',
    });
    expect(pastThread(thread({ preview: ' fix the bug\n' }) as v2.Thread).preview).toBe('fix the bug');
    expect(pastThread(thread({ name: '  ' }) as v2.Thread)).toEqual({ id: 't-1', updatedAt: 1_700_000_000_000 });
  });
});

describe('codexHistory (real codex)', () => {
  let mock: MockResponses;
  beforeAll(async () => {
    mock = await startMockResponses();
  });
  afterAll(async () => {
    await mock?.close();
  });

  it("lists only the threads that worked in the project's directories, and knows no other's", async () => {
    const first = codexLaunch({ mockUrl: mock.url });
    const home = first.env.HOME!;
    const here = codex.session(first);
    const elsewhere = codex.session(codexLaunch({ mockUrl: mock.url, codexHome: first.codexHome }));
    await here.startTurn({ inputs: [{ id: 'm1', text: 'here tag:h1', source: 'web:owner' }] }).result;
    await elsewhere.startTurn({ inputs: [{ id: 'm2', text: 'elsewhere tag:e1', source: 'web:owner' }] }).result;
    const agent = agentSchema.parse({
      codex: { bin: CODEX_BIN, config: mockCodexConfig(mock.url) },
      env: { HOME: home, CODEX_HOME: first.codexHome },
    });
    const history = codexHistory({ agent, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, codex.servers());
    const listed = await history.list([first.cwd], 10);
    expect(listed.map((t) => t.id)).toEqual([here.sessionId()]);
    expect(listed[0]!.preview).toContain('here tag:h1');
    expect(await history.has([first.cwd], here.sessionId()!)).toBe(true);
    expect(await history.has([first.cwd], elsewhere.sessionId()!)).toBe(false);
  }, 120_000);

  it('a setting that names no binary fails the listing with the code that names the setting', async () => {
    const agent = agentSchema.parse({ codex: { bin: path.join(tempDir('no-codex'), 'codex') } });
    const history = codexHistory({ agent, env: { PATH: '/usr/bin:/bin' } }, codex.servers());
    await expect(history.list(['/p'], 10)).rejects.toMatchObject({ code: 'CODEX_BINARY_MISSING' });
  });
});
