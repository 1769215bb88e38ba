/**
 * The claude-tmux backend through the gateway's HTTP API: the REAL TUI in tmux (private sockets)
 * against the mock Messages API, driven as the web page drives it.
 */
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readMenu } from '../../../src/agents/tmux/menus/menus.js';
import { hasTmux, Tmux } from '../../../src/agents/tmux/pane/tmux.js';
import type { ClaudeTmuxSession } from '../../../src/agents/tmux/tmux-session.js';
import { claudeConfigDir, transcriptPath } from '../../../src/agents/tmux/transcript/transcript.js';
import { cmdlineOf } from '../../../src/ops/proc.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import {
  killAtToolStart,
  killServers,
  measureTuiFirstTurnMs,
  onboardedHome,
  privateSocket,
  removeRigDirs,
} from '../../support/tmux-rig.js';

const tmuxAvailable = await hasTmux();

describe.skipIf(!tmuxAvailable)('claude-tmux through the gateway (real TUI)', () => {
  let mock: MockApi;
  const sockets: string[] = [];
  const running: Array<{ stop(): Promise<void> }> = [];

  beforeAll(async () => {
    mock = await startMockApi();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((g) => g.stop()));
    mock.setScript(undefined);
  });
  afterAll(async () => {
    await killServers(sockets);
    await mock.close();
    removeRigDirs();
  });

  async function gateway(agent: Record<string, unknown> = {}, home = onboardedHome()) {
    const socket = privateSocket('gw');
    sockets.push(socket);
    const { tmux, ...rest } = agent as { tmux?: Record<string, unknown> };
    const gw = await startInProcess({
      agent: agentConfig(mock.url, home, { backend: 'claude-tmux', ...rest, tmux: { ...tmux, socket } }),
    });
    running.push(gw);
    const session = (conv: string) => gw.gw.services.registry.get(`web:${conv}`) as ClaudeTmuxSession;
    const capture = (conv: string) => new Tmux({ name: socket }).capturePane(session(conv).paneName);
    const answer = (conv: string, requestId: unknown, body: Record<string, unknown>) =>
      fetch(`${gw.ep.base}/api/conversations/${conv}/permissions/${String(requestId)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.ep.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    return { ...gw, session, capture, answer };
  }

  it('relays a permission prompt with its options; approving runs the tool; a message sent meanwhile waits ' +
    'and is not typed into the menu', async () => {
    const gw = await gateway({ permissionMode: 'relay' });
    const w = gw.watch('perm');
    await w.ready;
    const marker = `${tempDir('perm')}/made-by-tool`;
    const a = await gw.post('perm', `[[bash:touch ${marker}]] tag:p1`);
    const p = await w.wait('permission', (d) => !d.resolved, 60_000);
    // The question, the tool, its whole input and the options: none of the TUI's drawing or tips.
    expect(p.data.toolName).toBe('Bash');
    expect(p.data.input).toEqual({ command: `touch ${marker}`, description: 'Run the requested command' });
    expect(p.data.description).toBe('Do you want to proceed?');
    // relay: "don't ask again" and "switch to auto mode" would stop the asking, so they are not offered.
    expect(p.data.options).toEqual([
      { id: 'allow', label: 'Yes' },
      { id: 'deny', label: 'No' },
    ]);
    expect(JSON.stringify(p.data)).not.toMatch(/Tip:|─|╌|auto mode/);
    const menu = readMenu(await gw.capture('perm'));

    const b = await gw.post('perm', 'meanwhile tag:p2');
    expect(b.disposition).toBe('queued');
    const ack = await w.wait('ack', (d) => d.messageId === b.messageId && d.kind === 'queued');
    expect(ack.data.note).toMatch(/question waiting for your answer/);
    await new Promise((r) => setTimeout(r, 1500));
    const screen = await gw.capture('perm');
    expect(readMenu(screen)).toEqual(menu);
    expect(screen).not.toContain('tag:p2');
    expect(mock.requests.some((q) => q.historyText.includes('tag:p2'))).toBe(false);

    expect((await gw.answer('perm', p.data.requestId, { allow: true })).status).toBe(200);
    await w.wait('reply', (d) => (d.messageIds as string[]).includes(a.messageId), 30_000);
    expect(fs.existsSync(marker)).toBe(true);
    const later = await w.wait('reply', (d) => (d.messageIds as string[]).includes(b.messageId), 30_000);
    expect(later.data.text).toContain('tag:p2');
    expect((await gw.answer('perm', p.data.requestId, { allow: true })).status).toBe(404);
  }, 120_000);

  it('a message steered as a prompt comes up: the "not typed yet" notice is about it, and it runs as its own ' +
    'turn after the prompt ends the turn', async () => {
    const gw = await gateway({ permissionMode: 'relay', tmux: { readyTimeoutSeconds: 1.5 } });
    const w = gw.watch('wait');
    await w.ready;
    const never = `${tempDir('perm')}/never-made`;
    // The message must be steered (the pane last seen busy) while the prompt is already drawn: the tool
    // call is held until the test watches the pane. The session's look lags by up to one poll; then try again.
    for (let attempt = 1; ; attempt++) {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let asked = false;
      mock.setScript(async (r) =>
        !r.side && r.lastText.includes(`tag:q${attempt}`) && !asked
          ? ((asked = true), await held, { kind: 'tool', name: 'Bash', input: { command: `touch ${never}` } })
          : undefined,
      );
      const a = await gw.post('wait', `work tag:q${attempt}`);
      await mock.waitFor((r) => !r.side && r.lastText.includes(`tag:q${attempt}`), 60_000);
      release();
      await waitUntil(
        async () => readMenu(await gw.capture('wait'))?.question === 'Do you want to proceed?',
        30_000,
        5,
      );
      const b = await gw.post('wait', `meanwhile tag:m${attempt}`);
      const p = await w.wait(
        'permission',
        (d) => !d.resolved && !w.of('permission', (x) => x.requestId === d.requestId && !!x.resolved).length,
        30_000,
      );
      if (b.disposition !== 'steered') {
        expect(attempt, 'the message was never steered before the session saw the prompt').toBeLessThan(10);
        await gw.answer('wait', p.data.requestId, { allow: false });
        await w.wait('reply', (d) => (d.messageIds as string[]).includes(a.messageId), 30_000);
        await w.wait('reply', (d) => (d.messageIds as string[]).includes(b.messageId) && d.kind === 'reply', 60_000);
        continue;
      }
      const told = await w.wait('reply', (d) => d.kind === 'notice' && /not typed yet/.test(String(d.text)), 20_000);
      expect(told.data.messageIds).toEqual([b.messageId]);
      expect(told.data.text).toMatch(/the agent terminal shows a menu/);
      expect((await gw.answer('wait', p.data.requestId, { allow: false })).status).toBe(200);
      const ra = await w.wait('reply', (d) => (d.messageIds as string[]).includes(a.messageId), 30_000);
      expect(ra.data.messageIds).toEqual([a.messageId]);
      const rb = await w.wait(
        'reply',
        (d) => (d.messageIds as string[]).includes(b.messageId) && d.kind === 'reply',
        60_000,
      );
      expect(rb.data.text).toContain(`ok tag:m${attempt}`);
      expect(w.repliesFor(b.messageId, 'reply')).toHaveLength(1);
      expect(mock.mainRequests().filter((q) => q.lastText.includes(`tag:m${attempt}`))).toHaveLength(1);
      expect(gw.gw.services.store.message(b.messageId)!.state).toBe('answered');
      return;
    }
  }, 240_000);

  it('reports a denied permission prompt, and the tool does not run', async () => {
    const gw = await gateway({ permissionMode: 'relay' });
    const w = gw.watch('deny');
    await w.ready;
    const never = `${tempDir('perm')}/never-made`;
    const a = await gw.post('deny', `[[bash:touch ${never}]] tag:d1`);
    const p = await w.wait('permission', (d) => !d.resolved, 60_000);
    expect((await gw.answer('deny', p.data.requestId, { allow: false })).status).toBe(200);
    await w.wait('permission', (d) => d.requestId === p.data.requestId && d.resolved === 'deny');
    const r = await w.wait('reply', (d) => (d.messageIds as string[]).includes(a.messageId), 30_000);
    expect(r.data.text).toMatch(/denied Bash: touch /);
    expect(fs.existsSync(never)).toBe(false);
  }, 120_000);

  it('a pane killed mid-turn is respawned with --resume and the message is answered there', async () => {
    const gw = await gateway();
    const w = gw.watch('kill');
    await w.ready;
    const first = await gw.post('kill', 'remember tag:g1');
    await w.wait('reply', (d) => (d.messageIds as string[]).includes(first.messageId), 60_000);
    const s = gw.session('kill');
    const sid = s.sessionId()!;
    const pid = s.pid()!;
    mock.setScript((r) =>
      !r.side && r.lastText.includes('tag:g2') && !r.afterTool
        ? { kind: 'tool', name: 'Bash', input: { command: 'echo start; sleep 20' } }
        : undefined,
    );
    const m = await gw.post('kill', 'work tag:g2');
    await w.wait('status', (d) => d.state === 'tool', 30_000);
    // The re-run on the resumed session is answered at once.
    mock.setScript((r) =>
      !r.side && r.lastText.includes('tag:g2')
        ? { kind: 'text', text: 'answered after the respawn tag:g2' }
        : undefined,
    );
    process.kill(pid, 'SIGKILL');
    const r = await w.wait(
      'reply',
      (d) => (d.messageIds as string[]).includes(m.messageId) && d.kind === 'reply',
      60_000,
    );
    expect(
      w
        .of('reply', (d) => (d.messageIds as string[]).includes(m.messageId) && d.kind === 'notice')
        .map((e) => e.data.text),
    ).toEqual(['↻ The agent stopped unexpectedly; running your message again on the resumed session.']);
    expect(r.data.text).toContain('answered after the respawn');
    const s2 = gw.session('kill');
    expect(s2.pid()).not.toBe(pid);
    expect(cmdlineOf(s2.pid()!)).toContain(`--resume ${sid}`);
    expect(mock.mainRequests().at(-1)!.historyText).toContain('tag:g1');
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('answered');
  }, 120_000);

  it('a pane killed at its first tool, before the conversation was written: the message runs again in a new ' +
    'session, once, and is answered', async () => {
    const home = onboardedHome();
    const cwd = fs.realpathSync(tempDir('early-cwd'));
    const gw = await gateway({ cwd }, home);
    const w = gw.watch('early');
    await w.ready;
    const flag = `${tempDir('early')}/tool-started`;
    const m = await gw.post('early', `work [[bash:touch ${flag}; sleep 20]] tag:e1`);
    await waitUntil(() => !!gw.gw.services.registry.get('web:early')?.pid(), 60_000);
    const s = gw.session('early');
    const file = () => transcriptPath(claudeConfigDir({ HOME: home }), cwd, s.sessionId()!);
    // The re-run is answered at once.
    mock.setScript((r) =>
      !r.side && r.lastText.includes('tag:e1') && fs.existsSync(flag)
        ? { kind: 'text', text: 'answered in the new session tag:e1' }
        : undefined,
    );
    await killAtToolStart(() => s.pid(), flag, file);
    const first = s.sessionId();
    const r = await w.wait(
      'reply',
      (d) => (d.messageIds as string[]).includes(m.messageId) && d.kind === 'reply',
      90_000,
    );
    expect(r.data.text).toContain('answered in the new session');
    expect(
      w.repliesFor(m.messageId, 'notice').filter((n) => /could not be resumed|failed/.test(String(n.data.text))),
    ).toEqual([]);
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('answered');
    expect(s.sessionId()).not.toBe(first);
    expect(cmdlineOf(s.pid()!)).toContain(`--session-id ${s.sessionId()}`);
    // Run again once: the original attempt and the re-run reached the model, nothing more.
    expect(mock.mainRequests().filter((q) => q.lastText.includes('tag:e1') && !q.afterTool)).toHaveLength(2);
    expect(gw.gw.services.store.conversation('web:early')!.sessionId).toBe(s.sessionId());
  }, 180_000);

  it('/stop during a tool leaves the pane ready; /model and /clear use the TUI’s own commands in the same ' +
    'pane', async () => {
    const gw = await gateway();
    const w = gw.watch('cmd');
    await w.ready;
    const first = await gw.post('cmd', 'remember tag:c1');
    await w.wait('reply', (d) => (d.messageIds as string[]).includes(first.messageId), 60_000);
    const pid = gw.session('cmd').pid()!;
    const a = await gw.post('cmd', 'long [[bash:echo start; sleep 30]] tag:c2');
    await w.wait('status', (d) => d.state === 'tool', 30_000);
    await gw.post('cmd', '/stop');
    await w.wait('ack', (d) => d.messageId === a.messageId && d.kind === 'stopped', 15_000);
    expect(gw.gw.services.store.message(a.messageId)!.state).toBe('stopped');

    await gw.post('cmd', '/model sonnet');
    const b = await gw.post('cmd', 'which model tag:c3');
    await w.wait('reply', (d) => (d.messageIds as string[]).includes(b.messageId), 30_000);
    expect(String(mock.mainRequests().at(-1)!.body.model)).toMatch(/sonnet/);
    expect(mock.mainRequests().at(-1)!.historyText).toContain('tag:c1');

    const before = gw.gw.services.store.conversation('web:cmd')!.sessionId;
    const clear = await gw.post('cmd', '/clear');
    await w.wait('reply', (d) => (d.messageIds as string[]).includes(clear.messageId), 30_000);
    const after = gw.gw.services.store.conversation('web:cmd')!.sessionId;
    expect(after).toBeTruthy();
    expect(after).not.toBe(before);
    const c = await gw.post('cmd', 'fresh tag:c4');
    await w.wait('reply', (d) => (d.messageIds as string[]).includes(c.messageId), 30_000);
    expect(mock.mainRequests().at(-1)!.historyText).not.toContain('tag:c1');
    expect(gw.session('cmd').pid()).toBe(pid);
  }, 150_000);
});

describe.skipIf(!tmuxAvailable)('a message the agent terminal does not take (real TUI)', () => {
  let mock: MockApi;
  const sockets: string[] = [];
  beforeAll(async () => {
    mock = await startMockApi();
  });
  afterAll(async () => {
    await killServers(sockets);
    await mock.close();
    removeRigDirs();
  });

  it('waits and the person is told; past the turn timeout it is held, later messages wait behind it, and ' +
    '/retry runs it', async () => {
    const socket = privateSocket('held');
    sockets.push(socket);
    // The first turn includes the TUI's start-up: the turn timeout gives it three times what it takes
    // here now (a loaded machine stretches it), and every wait below derives from that.
    const startMs = await measureTuiFirstTurnMs(mock.url);
    const turnTimeoutSeconds = Math.ceil((3 * startMs) / 1000) + 5;
    const turnMs = turnTimeoutSeconds * 1000;
    const gw = await startInProcess({
      agent: agentConfig(mock.url, onboardedHome(), {
        backend: 'claude-tmux',
        turnTimeoutSeconds,
        tmux: { socket, readyTimeoutSeconds: 2 },
      }),
    });
    try {
      const w = gw.watch('held');
      await w.ready;
      const first = await gw.post('held', 'hello tag:h0');
      await w.wait(
        'reply',
        (d) => (d.messageIds as string[]).includes(first.messageId) && d.kind === 'reply',
        turnMs + 10_000,
      );
      // The transcript view (ctrl+o) takes no typing: the pane reads not-ready.
      const tmux = new Tmux({ name: socket });
      const pane = (gw.gw.services.registry.get('web:held') as ClaudeTmuxSession).paneName;
      await tmux.sendKeys(pane, 'C-o');
      await waitUntil(async () => (await tmux.capturePane(pane)).includes('Showing detailed transcript'), 10_000);
      const a = await gw.post('held', 'first tag:h1');
      const told = await w.wait(
        'reply',
        (d) => (d.messageIds as string[]).includes(a.messageId) && d.kind === 'notice',
        20_000 + startMs,
      );
      expect(told.data.text).toMatch(/Your message is not typed yet/);
      const held = await w.wait(
        'reply',
        (d) =>
          (d.messageIds as string[]).includes(a.messageId) &&
          d.kind === 'notice' &&
          /kept and tried again at/.test(String(d.text)),
        turnMs + 20_000,
      );
      expect(held.data.text).toMatch(/AGENT_NOT_READY|did not take the message/);
      expect(gw.gw.services.store.message(a.messageId)!.state).toBe('deferred');
      expect(mock.requests.some((q) => q.lastUserText.includes('tag:h1'))).toBe(false);
      const b = await gw.post('held', 'second tag:h2');
      await w.wait(
        'ack',
        (d) =>
          d.messageId === b.messageId && d.kind === 'queued' && /waits for the agent terminal/.test(String(d.note)),
      );
      // Back to the input box, then ask for the held messages now.
      await tmux.sendKeys(pane, 'C-o');
      await waitUntil(async () => !(await tmux.capturePane(pane)).includes('Showing detailed transcript'), 10_000);
      await gw.post('held', '/retry');
      await w.wait(
        'reply',
        (d) => (d.messageIds as string[]).includes(a.messageId) && d.kind === 'reply',
        turnMs + 30_000,
      );
      await w.wait(
        'reply',
        (d) => (d.messageIds as string[]).includes(b.messageId) && d.kind === 'reply',
        turnMs + 30_000,
      );
      expect(gw.gw.services.store.message(a.messageId)!.state).toBe('answered');
    } finally {
      await gw.stop();
    }
  }, 600_000);
});
