/**
 * `rudder attach` on a headless (claude-stream) conversation: with one answered turn, the built CLI moves the
 * session at the turn boundary to a pane of Rudder's hand-back tmux server (`claude --resume` there), and the
 * conversation follows that pane as /attach does. A message sent from the phone during the move waits and is
 * answered once, in the pane, with the earlier turn in the model's history (the mock's log); the same claude
 * process answers after a real terminal attach and detach (the CLI in a pseudo-terminal, `script`), and a
 * shutdown of Rudder leaves the pane running: it is the person's now. The real pinned CLI against the mock,
 * real tmux on sockets the test owns.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handBackServer } from '../../../src/agents/tmux/attach/hand-back-pane.js';
import { hasTmux, Tmux } from '../../../src/agents/tmux/pane/tmux.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, CLI, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';
import { killServers, privateSocket } from '../../support/tmux-rig.js';

const tmuxAvailable = await hasTmux();
const WAIT = 90_000;

describe.skipIf(!tmuxAvailable)('rudder attach: a headless conversation handed back to a terminal', () => {
  let mock: MockApi;
  const cleanups: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    mock = await startMockApi();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => {
    await mock?.close();
  });

  /** A gateway whose conversations run headless in project `api`, with its tmux servers the test's own. */
  async function setUp(agent: Record<string, unknown> = {}) {
    const api = fs.realpathSync(tempDir('api'));
    const home = tempDir('chome');
    // The TUI skips onboarding only once it was done (offline it would exit); the rest its dialogs ask.
    fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
    const socket = privateSocket('hand');
    cleanups.push(() => killServers([socket, handBackServer(socket)]));
    const config = {
      agent: agentConfig(mock.url, home, { tmux: { socket }, ...agent }),
      projects: { api: { path: api } },
    };
    const gw = await startInProcess(config);
    let stopped = false;
    cleanups.push(() => (stopped ? undefined : gw.stop()));
    const env = cleanEnv({ RUDDER_URL: gw.ep.base, RUDDER_TOKEN: gw.ep.token });
    const stop = async () => {
      stopped = true;
      await gw.stop();
    };
    return { gw, socket, env, stop };
  }

  const prompts = (tag: string) => mock.requests.filter((q) => !q.side && q.lastText.includes(tag));

  it('moves at a turn end; a message sent meanwhile is answered once there; the phone drives it after', async () => {
    const { gw, socket, env, stop } = await setUp();
    const conv = ((await (await gw.api('POST', '/api/conversations', { project: 'api' })).json()) as { id: string }).id;
    const watch = gw.watch(conv);
    await watch.ready;
    const first = await gw.post(conv, 'remember the word heron tag:hb-one');
    await watch.waitReply(first.messageId, 'reply', WAIT);
    const store = gw.gw.services.store;
    const sessionId = store.conversation(`web:${conv}`)?.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const plan = await (await gw.api('GET', `/api/conversations/${conv}/terminal`)).json();
    expect(plan).toEqual({ way: 'move', busy: false, command: `rudder attach ${conv}` });

    // The built CLI, by the conversation's id (no terminal: it prints the tmux command instead of running it).
    const cli = runCli(['attach', conv], { env, timeoutMs: WAIT });
    // The pane exists while its TUI boots: the move is under way, and a message from the phone waits for it.
    const terminals = new Tmux({ name: handBackServer(socket) });
    await waitUntil(async () => (await terminals.listSessions()).length > 0, WAIT, 100);
    const during = await gw.post(conv, 'what word did I ask you to remember? tag:hb-two');
    expect(during.disposition).toBe('queued');
    const result = await cli;
    expect(result.stderr).toContain('Moving the session');
    expect(result.status).toBe(0);
    const printed = result.stdout.trim();
    const m = /^tmux -S (\S+) attach-session -t (%\d+)$/.exec(printed);
    expect(m, printed).not.toBeNull();
    const [, sock, paneId] = m!;
    expect(sock).toBe(terminals.socketPath());
    const panePid = () =>
      Number(execFileSync('tmux', ['-S', sock!, 'display-message', '-p', '-t', paneId!, '#{pane_pid}']).toString());
    const pid = panePid();

    // Answered once, in the pane, with the first turn in the history the model saw.
    await watch.waitReply(during.messageId, 'reply', WAIT);
    expect(prompts('tag:hb-two')).toHaveLength(1);
    expect(prompts('tag:hb-two')[0]!.historyText).toContain('tag:hb-one');
    expect(store.message(during.messageId)?.state).toBe('answered');
    expect(watch.repliesFor(during.messageId, 'reply')).toHaveLength(1);
    expect(store.attachments.get(`web:${conv}`)).toMatchObject({ kind: 'pane', paneId, pid, sessionId });
    expect(watch.events.some((e) => e.event === 'ack' && String(e.data.note).includes('moving to a terminal'))).toBe(
      true,
    );

    // A real terminal attach (the CLI in a pseudo-terminal), then a detach: the CLI says the phone drives it.
    const attached = inTerminal(conv, env);
    await waitUntil(() => clientNames(sock!).length > 0, WAIT, 100);
    for (const client of clientNames(sock!)) execFileSync('tmux', ['-S', sock!, 'detach-client', '-t', client]);
    const out = await attached.done;
    expect(out).toContain(`goes on driving pane`);

    // The phone goes on driving the same claude.
    const after = await gw.post(conv, 'and now? tag:hb-three');
    await watch.waitReply(after.messageId, 'reply', WAIT);
    expect(prompts('tag:hb-three')).toHaveLength(1);
    expect(prompts('tag:hb-three')[0]!.historyText).toContain('tag:hb-two');
    expect(panePid()).toBe(pid);

    // A shutdown lets go: the pane and its claude are the person's and go on running.
    await stop();
    expect(panePid()).toBe(pid);
    expect(() => process.kill(pid, 0)).not.toThrow();
  }, 300_000);

  it('while a turn runs: says so, s stops it, then the session moves and the terminal attaches', async () => {
    const { gw, socket, env } = await setUp();
    const conv = ((await (await gw.api('POST', '/api/conversations', { project: 'api' })).json()) as { id: string }).id;
    const watch = gw.watch(conv);
    await watch.ready;
    const first = await gw.post(conv, 'first tag:hb-warm');
    await watch.waitReply(first.messageId, 'reply', WAIT);
    const slow = await gw.post(conv, 'a long answer [[slow:120000]] tag:hb-slow');
    await waitUntil(() => prompts('tag:hb-slow').length > 0, WAIT, 100);
    const plan = await (await gw.api('GET', `/api/conversations/${conv}/terminal`)).json();
    expect(plan).toMatchObject({ way: 'move', busy: true });

    const cli = inTerminal(conv, env);
    await waitUntil(() => cli.output().includes('Press s to stop it'), WAIT, 100);
    // Waiting, nothing moved: no pane yet.
    const terminals = new Tmux({ name: handBackServer(socket) });
    expect(await terminals.listSessions()).toEqual([]);
    cli.type('s');
    const sock = terminals.socketPath();
    await waitUntil(() => clientNames(sock).length > 0, WAIT, 100);
    expect(store(gw).message(slow.messageId)?.state).toBe('stopped');
    for (const client of clientNames(sock)) execFileSync('tmux', ['-S', sock, 'detach-client', '-t', client]);
    expect(await cli.done).toContain('goes on driving pane');
    expect(cli.output()).toContain('Stopping the running turn');

    const after = await gw.post(conv, 'and now? tag:hb-after-stop');
    await watch.waitReply(after.messageId, 'reply', WAIT);
    expect(prompts('tag:hb-after-stop')).toHaveLength(1);
    expect(store(gw).attachments.get(`web:${conv}`)?.kind).toBe('pane');
  }, 300_000);

  it('a claude-tmux conversation, named by the start of its title: its own pane, nothing moved', async () => {
    const { gw, socket, env } = await setUp({ backend: 'claude-tmux' });
    const conv = ((await (await gw.api('POST', '/api/conversations', { project: 'api' })).json()) as { id: string }).id;
    const watch = gw.watch(conv);
    await watch.ready;
    const first = await gw.post(conv, 'Pelican survey tag:hb-tui');
    await watch.waitReply(first.messageId, 'reply', WAIT);
    const result = await runCli(['attach', 'pelican', '--print'], { env, timeoutMs: WAIT });
    expect(result.status).toBe(0);
    const backend = new Tmux({ name: socket });
    const [session] = await backend.listSessions();
    expect(result.stdout.trim()).toBe(`tmux -S ${backend.socketPath()} attach-session -t =${session}`);
    expect(result.stderr).not.toContain('Moving');
    expect(await new Tmux({ name: handBackServer(socket) }).listSessions()).toEqual([]);
    expect(store(gw).attachments.get(`web:${conv}`)).toBeUndefined();
  }, 300_000);

  it('refuses, with its code, a conversation that has no session yet', async () => {
    const { gw, env } = await setUp();
    const conv = ((await (await gw.api('POST', '/api/conversations', { project: 'api' })).json()) as { id: string }).id;
    const res = await gw.api('POST', `/api/conversations/${conv}/terminal`, {});
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('TERMINAL_NO_SESSION');
    const unknown = await gw.api('GET', '/api/conversations/nope/terminal');
    expect(unknown.status).toBe(404);
    const cli = await runCli(['attach', 'no-such-title'], { env });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain('No conversation has the id "no-such-title"');
  }, 120_000);

  it("a node's conversation whose node does not answer: 503, naming the node", async () => {
    const api = fs.realpathSync(tempDir('api'));
    const gw = await startInProcess({
      agent: agentConfig(mock.url, tempDir('chome')),
      nodes: { embeddedPort: 0 },
      projects: { api: { path: api }, far: { node: 'gpu' } },
    });
    cleanups.push(() => gw.stop());
    const made = await gw.api('POST', '/api/conversations', { project: 'far' });
    const conv = ((await made.json()) as { id: string }).id;
    const plan = await gw.api('GET', `/api/conversations/${conv}/terminal`);
    expect(plan.status).toBe(503);
    const body = (await plan.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('AGENT_UNREACHABLE');
    expect(body.error.message).toMatch(/Node gpu did not answer/);
    const env = cleanEnv({ RUDDER_URL: gw.ep.base, RUDDER_TOKEN: gw.ep.token });
    const cli = await runCli(['attach', conv], { env });
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain('AGENT_UNREACHABLE');
  }, 120_000);
});

/** The clients attached to the server (terminals). */
function clientNames(socket: string): string[] {
  try {
    return execFileSync('tmux', ['-S', socket, 'list-clients', '-F', '#{client_name}'])
      .toString()
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

const store = (gw: Awaited<ReturnType<typeof startInProcess>>) => gw.gw.services.store;

/** `rudder attach <conv>` in a pseudo-terminal (script), as a person runs it: what it printed, keys typed there. */
function inTerminal(conv: string, env: Record<string, string | undefined>) {
  const command = `${process.execPath} ${CLI} attach ${conv}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: { ...env, TERM: 'xterm-256color' } as NodeJS.ProcessEnv,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const guard = setTimeout(() => child.kill('SIGKILL'), WAIT);
  const done = new Promise<string>((resolve) =>
    child.on('close', () => {
      clearTimeout(guard);
      resolve(out);
    }),
  );
  return { done, output: () => out, type: (keys: string) => child.stdin.write(keys) };
}
