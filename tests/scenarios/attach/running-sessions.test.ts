/**
 * /sessions lists what already runs in the project: a TUI a person started in a pane of their own
 * tmux server (named in agent.tmux.discover) with its session, pane, state and last prompt; a
 * headless `claude -p` as running but not attachable, with why.
 * /attach <n>: the conversation drives a Claude Code TUI a person runs in their own tmux pane, live,
 * never restarted. A message is typed once and answered once, the pane's claude the same process
 * before and after; what the person types there shows as typed in the terminal, with its reply; a
 * box holding the person's half-typed line is never typed into (the message waits, and says so); a
 * permission menu is relayed and answered from the page; /stop sends Escape and the pane lives;
 * /detach lets go, and a message while the pane still has the session is refused with the reason.
 * The real TUI against the mock, real tmux on sockets the test owns.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hasTmux } from '../../../src/agents/tmux/pane/tmux.js';
import { transcriptPath } from '../../../src/agents/tmux/transcript/transcript.js';
import { createLogger } from '../../../src/ops/logger.js';
import { CLAUDE_BIN, rigEnv, tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, type EventWatch, startChild, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { startPersonPane } from '../../support/person-pane.js';

const tmuxAvailable = await hasTmux();

/** RIG_LOG_DIR=<dir>: the gateway's log at debug level, to see why a run failed. */
const logged = () =>
  process.env.RIG_LOG_DIR
    ? { logger: createLogger({ dataDir: process.env.RIG_LOG_DIR, level: 'debug', pretty: false }) }
    : {};

describe.skipIf(!tmuxAvailable)("/attach: a person's live pane, driven from the page (real TUI)", () => {
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

  /** The person's TUI in its pane, a gateway that looks in its server, a conversation in its project. */
  async function setUp(args: string[] = []) {
    const api = fs.realpathSync(tempDir('api'));
    const pane = await startPersonPane(mock.url, api, args);
    cleanups.push(() => pane.kill());
    const claudeHome = tempDir('chome');
    const config = {
      agent: agentConfig(mock.url, claudeHome, { permissionMode: 'relay', tmux: { discover: [pane.socket] } }),
      projects: { api: { path: api } },
    };
    const start = async (home?: string) => {
      const g = await startInProcess(config, { ...logged(), ...(home ? { home } : {}) });
      cleanups.push(() => g.stop());
      return g;
    };
    const gw = await start();
    const r = await gw.api('POST', '/api/conversations', { project: 'api' });
    const conv = ((await r.json()) as { id: string }).id;
    const w = gw.watch(conv);
    await w.ready;
    const command = async (text: string) => {
      const m = await gw.post(conv, text);
      expect(m.disposition).toBe('command');
      return String((await w.waitReply(m.messageId, 'notice', 60_000)).data.text);
    };
    const prompts = (tag: string) => mock.requests.filter((q) => !q.side && q.lastText.includes(tag)).length;
    return { api, claudeHome, pane, gw, conv, w, command, start, prompts };
  }

  /** setUp, and the conversation attached to the pane. */
  async function attached(args: string[] = []) {
    const s = await setUp(args);
    await s.pane.waitFor('ready');
    const pid = s.pane.pid();
    expect(await s.command('/sessions')).toMatch(/^1\. pane work:0\.0 · ready · /m);
    expect(await s.command('/attach 1')).toMatch(/^This conversation now drives the claude in pane work:0\.0 /);
    return { ...s, pid };
  }

  it('lists the TUI in the pane with its session, pane, state and last prompt, and a claude -p as not ' +
    'attachable', async () => {
    const { api, pane, command, claudeHome, prompts } = await setUp();
    await pane.waitFor('ready');
    await pane.submit('started at my desk tag:desk');
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
    expect(prompts('tag:desk')).toBe(1);
    expect(await pane.verdict()).toBe('ready');
  }, 180_000);

  it('a message is typed once and answered once; what the person types shows as typed in the terminal; ' +
    'their half-typed line is never sent or mixed with a message', async () => {
    const { pane, gw, w, pid, prompts, conv } = await attached();
    const a = await gw.post(conv, 'from my phone tag:phone');
    expect((await w.waitReply(a.messageId, 'reply', 60_000)).data.text).toContain('ok tag:phone');
    expect(prompts('tag:phone')).toBe(1);
    expect(pane.pid()).toBe(pid);

    // The person types at the pane: the conversation shows it, and the reply, answering none of its messages.
    await pane.waitFor('ready');
    await pane.submit('at my desk tag:desk');
    const typed = await w.wait(
      'reply',
      (d) => /Typed in the terminal: at my desk tag:desk/.test(String(d.text)),
      60_000,
    );
    expect(typed.data.kind).toBe('notice');
    const answer = await w.wait('reply', (d) => d.kind === 'reply' && String(d.text).includes('ok tag:desk'), 60_000);
    expect(answer.data.messageIds).toEqual([]);

    // A half-typed line of the person's: the message waits and says why; nothing is typed over it.
    await pane.waitFor('ready');
    pane.type('half typed tag:half');
    await waitUntil(async () => (await pane.capture()).includes('half typed tag:half'), 10_000);
    const b = await gw.post(conv, 'second from my phone tag:phone2');
    await w.wait('reply', (d) => /someone is typing in the terminal/.test(String(d.text)), 60_000);
    await new Promise((r) => setTimeout(r, 2000));
    expect(prompts('tag:phone2')).toBe(0);
    expect(await pane.capture()).not.toContain('tag:phone2');
    // The person deletes their line: the message is typed then, alone.
    pane.keys(...Array.from({ length: 'half typed tag:half'.length }, () => 'BSpace'));
    expect((await w.waitReply(b.messageId, 'reply', 90_000)).data.text).toContain('ok tag:phone2');
    expect(prompts('tag:phone2')).toBe(1);
    expect(mock.requests.some((q) => q.historyText.includes('tag:half'))).toBe(false);
    expect(pane.pid()).toBe(pid);
  }, 300_000);

  it('a permission menu is relayed and answered from the page once; /stop sends Escape and the pane lives; ' +
    '/detach lets go, and a message while the pane has the session is refused with why', async () => {
    const { pane, gw, w, pid, command, conv } = await attached(['--permission-mode', 'manual']);
    const made = `${tempDir('made')}/by-tool`;
    const a = await gw.post(conv, `long [[bash:touch ${made}; echo start; sleep 20]] tag:long`);
    const p = await w.wait('permission', (d) => !d.resolved, 60_000);
    expect(p.data.toolName).toBe('Bash');
    const answer = await gw.api('POST', `/api/conversations/${conv}/permissions/${String(p.data.requestId)}`, {
      allow: true,
    });
    expect(answer.status).toBe(200);
    await waitUntil(() => fs.existsSync(made), 30_000);
    await waitUntil(
      async () => (await pane.capture()).includes('sleep 20') && (await pane.verdict()) === 'busy',
      30_000,
    );
    const menusAnswered = (await pane.capture()).match(/Do you want to proceed\?/g)?.length ?? 0;
    expect(menusAnswered).toBe(0);

    const stop = await command('/stop');
    expect(stop).toMatch(/stop/i);
    await w.wait('ack', (d) => d.messageId === a.messageId && d.kind === 'stopped', 30_000);
    await pane.waitFor('ready', 30_000);
    expect(pane.pid()).toBe(pid);
    expect(await pane.tmux.hasPane(pane.paneId)).toBe(true);

    expect(await command('/detach')).toMatch(
      /^Let go of pane work:0\.0: it goes on as it was\. .*once the pane has closed it/,
    );
    const b = await gw.post(conv, 'after detaching tag:after');
    const refused = await w.waitReply(b.messageId, 'notice', 30_000);
    expect(String(refused.data.text)).toMatch(/still open in the terminal \(pane work:0\.0/);
    expect(mock.requests.some((q) => q.lastText.includes('tag:after'))).toBe(false);
    expect(pane.pid()).toBe(pid);
  }, 300_000);

  it('a shutdown leaves the pane and its claude running; after the restart the conversation is attached ' +
    'again', async () => {
    const { pane, gw, conv, pid, start } = await attached();
    await gw.stop();
    expect(pane.pid()).toBe(pid);
    expect(await pane.verdict()).toBe('ready');
    const again = await start(gw.home);
    const w = again.watch(conv);
    await w.ready;
    await pane.submit('after the restart tag:again');
    await w.wait('reply', (d) => /Typed in the terminal: after the restart tag:again/.test(String(d.text)), 60_000);
    const m = await again.post(conv, 'and from my phone tag:phone3');
    expect((await w.waitReply(m.messageId, 'reply', 90_000)).data.text).toContain('ok tag:phone3');
    expect(pane.pid()).toBe(pid);
  }, 300_000);

  it('attached while a permission menu of a turn started at the terminal is open: nothing is typed into it, it ' +
    'is offered as buttons, and answering it from the page selects the option once', async () => {
    const s = await setUp(['--permission-mode', 'manual']);
    await s.pane.waitFor('ready');
    const pid = s.pane.pid();
    const made = `${tempDir('made')}/by-tool`;
    await s.pane.submit(`at my desk [[bash:touch ${made}]] tag:desk`);
    await s.pane.waitFor('menu');
    expect(await s.command('/sessions')).toMatch(/^1\. pane work:0\.0 · a menu is open · /m);
    expect(await s.command('/attach 1')).toMatch(/^This conversation now drives the claude in pane work:0\.0 /);
    const p = await s.w.wait('permission', (d) => !d.resolved, 60_000);
    expect(p.data.toolName).toBe('Bash');
    expect(p.data.input).toMatchObject({ command: `touch ${made}` });
    const b = await s.gw.post(s.conv, 'meanwhile from my phone tag:menuwait');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await s.pane.verdict()).toBe('menu');
    expect(await s.pane.capture()).not.toContain('tag:menuwait');
    const answer = (allow: boolean) =>
      s.gw.api('POST', `/api/conversations/${s.conv}/permissions/${String(p.data.requestId)}`, { allow });
    expect((await answer(true)).status).toBe(200);
    await waitUntil(() => fs.existsSync(made), 30_000);
    expect((await answer(true)).status).toBe(404);
    expect((await s.w.waitReply(b.messageId, 'reply', 90_000)).data.text).toContain('ok tag:menuwait');
    expect(s.prompts('tag:menuwait')).toBe(1);
    expect(s.pane.pid()).toBe(pid);
  }, 300_000);

  it('kill -9 of Rudder leaves the pane and its claude running; the next start drives the same pane ' +
    'again', async () => {
    const api = fs.realpathSync(tempDir('api'));
    const pane = await startPersonPane(mock.url, api);
    cleanups.push(() => pane.kill());
    const config = {
      agent: agentConfig(mock.url, tempDir('chome'), { tmux: { discover: [pane.socket] } }),
      projects: { api: { path: api } },
    };
    const first = await startChild(config);
    cleanups.push(() => first.stop());
    const r = await first.api('POST', '/api/conversations', { project: 'api' });
    const conv = ((await r.json()) as { id: string }).id;
    const command = async (gw: typeof first, w: EventWatch, text: string) => {
      const m = await gw.post(conv, text);
      return String((await w.waitReply(m.messageId, 'notice', 60_000)).data.text);
    };
    const w1 = first.watch(conv);
    await w1.ready;
    await pane.waitFor('ready');
    const pid = pane.pid();
    await command(first, w1, '/sessions');
    expect(await command(first, w1, '/attach 1')).toMatch(
      /^This conversation now drives the claude in pane work:0\.0 /,
    );
    await first.kill9();
    await new Promise((r) => setTimeout(r, 1000));
    expect(pane.pid()).toBe(pid);
    expect(await pane.verdict()).toBe('ready');

    const second = await startChild(config, { home: first.home });
    cleanups.push(() => second.stop());
    const w2 = second.watch(conv);
    await w2.ready;
    expect(pane.pid()).toBe(pid);
    const m = await second.post(conv, 'after a crash tag:crash');
    expect((await w2.waitReply(m.messageId, 'reply', 90_000)).data.text).toContain('ok tag:crash');
    expect(mock.requests.filter((q) => !q.side && q.lastText.includes('tag:crash'))).toHaveLength(1);
    // Typed into the person's pane: its own transcript has it (not a process of Rudder's resuming the session).
    const transcript = transcriptPath(path.join(pane.home, '.claude'), api, pane.sessionId()!);
    expect(fs.readFileSync(transcript, 'utf8')).toContain('after a crash tag:crash');
    expect(pane.pid()).toBe(pid);
  }, 300_000);
});
