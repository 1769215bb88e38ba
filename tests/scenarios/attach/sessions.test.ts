/**
 * /sessions lists what already runs in the conversation's project: a Claude Code TUI a person started
 * in a pane of their own tmux server (named in agent.tmux.discover) with its session id, directory,
 * pane, state by the pane classifier and last prompt; a headless `claude -p` as running but not
 * attachable, with why. The real TUI and CLI against the mock, real tmux on sockets the test owns.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hasTmux } from '../../../src/agents/tmux/pane/tmux.js';
import { CLAUDE_BIN, rigEnv, tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { startPersonPane } from '../../support/person-pane.js';

const tmuxAvailable = await hasTmux();

describe.skipIf(!tmuxAvailable)("/sessions: what already runs (real TUI in a person's tmux pane)", () => {
  let mock: MockApi;
  const cleanups: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    mock = await startMockApi();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    mock.setScript(undefined);
  });
  afterAll(async () => {
    await mock.close();
  });

  async function setUp() {
    const api = fs.realpathSync(tempDir('api'));
    const pane = await startPersonPane(mock.url, api);
    cleanups.push(() => pane.kill());
    const claudeHome = tempDir('chome');
    const gw = await startInProcess({
      agent: agentConfig(mock.url, claudeHome, { tmux: { discover: [pane.socket] } }),
      projects: { api: { path: api } },
    });
    cleanups.push(() => gw.stop());
    const r = await gw.api('POST', '/api/conversations', { project: 'api' });
    const conv = ((await r.json()) as { id: string }).id;
    const w = gw.watch(conv);
    await w.ready;
    const command = async (text: string) => {
      const m = await gw.post(conv, text);
      expect(m.disposition).toBe('command');
      return String((await w.waitReply(m.messageId, 'notice', 60_000)).data.text);
    };
    return { api, pane, gw, conv, w, command, claudeHome };
  }

  it('lists the TUI in the pane with its session, pane, state and last prompt, and a claude -p as not attachable', async () => {
    const { api, pane, command, claudeHome } = await setUp();
    await pane.waitFor('ready');
    pane.type('started at my desk tag:desk');
    pane.keys('Enter');
    await mock.waitFor((q) => !q.side && q.lastText.includes('tag:desk'), 60_000);
    await pane.waitFor('ready');
    const sid = pane.sessionId();
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);

    // A headless claude -p, held at the mock while /sessions looks.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    mock.setScript(async (q) => (q.lastText.includes('tag:headless') ? (await held, undefined) : undefined));
    const headless: ChildProcess = spawn(CLAUDE_BIN, ['-p', 'slow work tag:headless'], {
      cwd: api,
      env: rigEnv(mock.url, claudeHome),
      stdio: 'ignore',
    });
    cleanups.push(() => {
      release();
      headless.kill('SIGKILL');
    });
    await mock.waitFor((q) => !q.side && q.lastText.includes('tag:headless'), 60_000);

    const list = await command('/sessions');
    expect(list).toMatch(
      new RegExp(
        `^Running now in api:\\n1\\. pane work:0\\.0 · ready · ${sid} · ${api} · last prompt: “started at my desk ` +
          'tag:desk”$',
        'm',
      ),
    );
    expect(list).toMatch(
      new RegExp(
        `^- [0-9a-f-]{36} · ${api}: running, not attachable: a headless claude -p \\(pid ${headless.pid}\\)`,
        'm',
      ),
    );
    expect(list).toContain('Send /attach <number>');
    // Looking typed nothing: the pane shows the same box, and the mock saw no other prompt.
    expect(mock.requests.filter((q) => !q.side && q.lastText.includes('tag:desk'))).toHaveLength(1);
    expect(await pane.verdict()).toBe('ready');
  }, 180_000);
});
