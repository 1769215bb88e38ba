/**
 * `rudder attach` on a Codex conversation: the built CLI prints the line that resumes its thread in Codex's own
 * TUI (`codex resume -C <dir> <thread>`), and Rudder holds the conversation's messages while Codex has the thread
 * (one writer at a time): a message sent meanwhile reaches no model until the thread is handed back
 * (`rudder attach --done`), then runs once, in the same thread. In a terminal, the CLI runs Codex's TUI itself
 * and hands the thread back when it exits. The real codex binary (CLI and TUI) against the mock Responses API.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasTmux, Tmux } from '../../../src/agents/tmux/pane/tmux.js';
import { waitUntil } from '../../support/claude-rig.js';
import { codexAgent, sentTimes, useCodexGateway } from '../../support/codex-gateway.js';
import { CLI, startInProcess } from '../../support/gateway-rig.js';
import { type MockResponses, mockCodexConfig } from '../../support/mock-responses.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';
import { killServers, privateSocket } from '../../support/tmux-rig.js';

let mock: MockResponses;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 60_000;
useCodexGateway((s) => void ({ mock, gw, budget } = s));

describe('rudder attach on a Codex conversation (real codex)', () => {
  it('prints the resume line; messages wait until the thread is handed back, then run once in it', async () => {
    const conv = 'cx-hand';
    const env = cleanEnv({ RUDDER_URL: gw.ep.base, RUDDER_TOKEN: gw.ep.token });
    const watch = gw.watch(conv);
    await watch.ready;
    const first = await gw.post(conv, 'first tag:cx-one');
    await watch.waitReply(first.messageId, 'reply', budget);
    const store = gw.gw.services.store;
    const thread = store.conversation(`web:${conv}`)?.sessionId;
    expect(thread).toBeTruthy();

    const printed = await runCli(['attach', conv], { env, timeoutMs: budget });
    expect(printed.status).toBe(0);
    expect(printed.stdout.trim()).toMatch(new RegExp(`^\\S*codex resume -C \\S+ ${thread}$`));
    expect(printed.stderr).toContain('holds this conversation');

    const during = await gw.post(conv, 'while codex has it tag:cx-two');
    expect(during.disposition).toBe('queued');
    await watch.wait('ack', (d) => d.messageId === during.messageId && String(d.note).includes('open in a terminal'));
    expect(store.message(during.messageId)).toMatchObject({ state: 'deferred', heldFor: 'terminal-open' });
    expect(sentTimes(mock.requests, 'tag:cx-two')).toBe(0);

    const back = await runCli(['attach', conv, '--done'], { env, timeoutMs: budget });
    expect(back.status).toBe(0);
    expect(back.stderr).toContain('1 held message(s) now run');
    await watch.waitReply(during.messageId, 'reply', budget);
    expect(sentTimes(mock.requests, 'tag:cx-two')).toBe(1);
    expect(store.conversation(`web:${conv}`)?.sessionId).toBe(thread);
    const again = await runCli(['attach', conv, '--done'], { env, timeoutMs: budget });
    expect(again.stderr).toContain('Nothing of cx-hand was held');
  }, 300_000);

  it.skipIf(!tmuxAvailable)(
    'in a terminal: Codex runs there, its turn lands in the thread, and the thread comes back when it exits',
    async () => {
      // A gateway of its own: no other conversation keeps its Codex app-server (and the thread loaded) alive.
      const gw = await startInProcess({ agent: codexAgent(mock.url) });
      stops.push(() => gw.stop());
      const conv = 'cx-tui';
      const watch = gw.watch(conv);
      await watch.ready;
      const first = await gw.post(conv, 'first tag:cx-t1');
      await watch.waitReply(first.messageId, 'reply', budget);
      const thread = gw.gw.services.store.conversation(`web:${conv}`)?.sessionId;
      expect(thread).toBeTruthy();

      // The person's Codex reads its own config: here the same mock provider Rudder's app-server is given.
      const { HOME, CODEX_HOME } = agentEnv(gw);
      fs.writeFileSync(path.join(CODEX_HOME, 'config.toml'), toml(mockCodexConfig(mock.url)));
      daemonsOf.push(CODEX_HOME);
      const env = {
        ...cleanEnv({ RUDDER_URL: gw.ep.base, RUDDER_TOKEN: gw.ep.token }),
        HOME,
        CODEX_HOME,
        TERM: 'tmux-256color',
      } as Record<string, string>;
      const tmux = new Tmux({ name: socket });
      await tmux.newSession({
        name: 'person',
        cwd: HOME,
        width: 120,
        height: 40,
        env,
        argv: [process.execPath, CLI, 'attach', conv],
      });
      const screen = () => tmux.capturePane('person');
      await waitUntil(async () => (await screen()).includes('Ask Codex to do anything'), budget, 200);

      // Held while Codex has the thread.
      const during = await gw.post(conv, 'while codex has it tag:cx-t2');
      expect(during.disposition).toBe('queued');
      await watch.wait('ack', (d) => d.messageId === during.messageId && String(d.note).includes('open in a terminal'));

      // The person's own turn in Codex's TUI: the same thread.
      await tmux.sendKeysLiteral('person', 'at my terminal tag:cx-tui');
      await waitUntil(async () => (await screen()).includes('at my terminal tag:cx-tui'), budget, 100);
      await tmux.sendKeys('person', 'Enter');
      await waitUntil(async () => (await screen()).includes('ok tag:cx-tui'), budget, 200);
      // (Codex's TUI also asks the model for the thread's title, in a thread of its own.)
      expect(threadsOf('tag:cx-tui')).toContain(thread);
      expect(sentTimes(mock.requests, 'tag:cx-t2')).toBe(0);

      // The person quits Codex: the thread goes back, and what waited runs once in it, after the TUI's turn.
      await tmux.sendKeys('person', 'C-c');
      // Codex may ask what becomes of a task still running (the title it asks for in the background): Exit stops
      // it and leaves.
      await waitUntil(async () => /3\. Exit|Handed back/.test(await screen()), budget, 100);
      if ((await screen()).includes('3. Exit')) await tmux.sendKeys('person', 'Down', 'Down', 'Enter');
      // Codex's TUI leaves its app-server running with the thread for about a minute: the message waits for it.
      await watch.waitReply(during.messageId, 'reply', 180_000);
      expect(sentTimes(mock.requests, 'tag:cx-t2')).toBe(1);
      expect(threadsOf('tag:cx-t2')).toEqual([thread]);
      const asked = mock.requests.find((q) => q.userTexts.some((t) => t.includes('tag:cx-t2')))!;
      expect(asked.historyTexts.some((t) => t.includes('at my terminal tag:cx-tui'))).toBe(true);
      await waitUntil(async () => (await screen()).includes('held message(s) now run'), budget, 200);
      watch.close();
    },
    300_000,
  );
});

const tmuxAvailable = await hasTmux();
const socket = privateSocket('codex-tui');
/** The CODEX_HOMEs whose app-server daemon a Codex TUI left running (it outlives the TUI by design). */
const daemonsOf: string[] = [];
const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const stop of stops) await stop();
  await killServers([socket]);
  for (const home of daemonsOf) for (const pid of pidsUsing(home)) process.kill(pid, 'SIGTERM');
});

/** The gateway's agent environment (HOME, CODEX_HOME), as its config gave it. */
function agentEnv(gw: { configFile: string }): { HOME: string; CODEX_HOME: string } {
  const config = JSON.parse(fs.readFileSync(gw.configFile, 'utf8')) as { agent: { env: Record<string, string> } };
  return { HOME: config.agent.env.HOME!, CODEX_HOME: config.agent.env.CODEX_HOME! };
}

/** Codex's config.toml for dotted keys and their values. */
function toml(config: Record<string, string | number>): string {
  return Object.entries(config)
    .map(([k, v]) => `${k} = ${typeof v === 'number' ? v : JSON.stringify(v)}`)
    .join('\n');
}

const threadsOf = (tag: string) =>
  mock.requests.filter((q) => q.userTexts.some((t) => t.includes(tag))).map((q) => q.threadId);

/** The processes whose command line runs a program from that directory. */
function pidsUsing(dir: string): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')[0]!.startsWith(dir)) pids.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}
