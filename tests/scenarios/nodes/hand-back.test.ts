/**
 * `rudder attach` for a conversation whose agent runs on a node: run on the node's machine against the front,
 * the node moves the headless session, at a turn boundary, to a pane of its own hand-back tmux server
 * (`claude --resume` with the conversation's launch there); the conversation follows that pane as an attached
 * one, the phone drives it (each message typed once, answered once, with the earlier turns in the model's
 * history), and a stop of the node only lets go of it. Real NATS, a real node, the real TUI against the mock,
 * real tmux on sockets the test owns.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handBackServer } from '../../../src/agents/tmux/attach/hand-back-pane.js';
import { hasTmux, Tmux } from '../../../src/agents/tmux/pane/tmux.js';
import { waitUntil } from '../../support/claude-rig.js';
import type { MockApi } from '../../support/mock-anthropic.js';
import { type Cluster, conversationIn, upNodes, useCluster } from '../../support/nodes-rig.js';
import { cleanEnv, runCli } from '../../support/run-cli.js';
import { killServers, privateSocket } from '../../support/tmux-rig.js';

const tmuxAvailable = await hasTmux();
const socket = privateSocket('node-hand');

let mock: MockApi;
let cl: Cluster;

useCluster([{ name: 'n1', projects: ['api'], agent: { tmux: { socket } } }], (s) => void ({ mock, cl } = s));
afterAll(() => killServers([socket, handBackServer(socket)]));

const prompts = (tag: string) => mock.requests.filter((q) => !q.side && q.lastText.includes(tag));

describe.skipIf(!tmuxAvailable)("rudder attach on a node's machine", { timeout: 300_000 }, () => {
  it(
    'moves the headless session on the node to a pane there at a turn end; a message sent meanwhile and the ' +
      'next ones are answered once in it; a stop of the node lets go of the pane',
    async () => {
      const node = cl.nodes.n1!;
      // The TUI skips onboarding only once it was done (offline it would exit).
      fs.writeFileSync(path.join(node.claudeHome, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
      const conv = await conversationIn(cl.front, 'api');
      const watch = cl.front.watch(conv);
      await watch.ready;
      const first = await cl.front.post(conv, 'remember the word heron tag:nh-one');
      await watch.waitReply(first.messageId, 'reply', cl.budget());

      const plan = await (await cl.front.api('GET', `/api/conversations/${conv}/terminal`)).json();
      expect(plan).toEqual({ way: 'move', busy: false, command: `rudder attach ${conv}`, node: 'n1' });

      // The CLI on the node's machine (here the same one), naming the front.
      const env = cleanEnv({ RUDDER_URL: cl.front.ep.base, RUDDER_TOKEN: cl.front.ep.token });
      const cli = runCli(['attach', conv], { env, timeoutMs: cl.budget() * 2 });
      const terminals = new Tmux({ name: handBackServer(socket) });
      await waitUntil(async () => (await terminals.listSessions()).length > 0, cl.budget(), 100);
      // The move is under way on the node: a message from the phone waits for it, in line.
      const during = await cl.front.post(conv, 'what word did I ask you to remember? tag:nh-two');
      expect(during.disposition).toBe('queued');
      const result = await cli;
      expect(result.stderr).toContain('Moving the session');
      expect(result.stderr).toContain('on node n1');
      expect(result.status, result.stderr).toBe(0);
      const m = /^tmux -S (\S+) attach-session -t (%\d+)$/.exec(result.stdout.trim());
      expect(m, result.stdout).not.toBeNull();
      const [, sock, paneId] = m!;
      expect(sock).toBe(terminals.socketPath());
      const panePid = () =>
        Number(execFileSync('tmux', ['-S', sock!, 'display-message', '-p', '-t', paneId!, '#{pane_pid}']).toString());
      const pid = panePid();

      // Answered once, in the pane on the node, with the first turn in the history the model saw.
      await watch.waitReply(during.messageId, 'reply', cl.budget());
      expect(prompts('tag:nh-two')).toHaveLength(1);
      expect(prompts('tag:nh-two')[0]!.historyText).toContain('tag:nh-one');
      expect(watch.repliesFor(during.messageId, 'reply')).toHaveLength(1);
      expect(
        watch.events.some((e) => e.event === 'reply' && String(e.data.text).includes('Handed to a terminal')),
      ).toBe(true);
      expect(execFileSync('tmux', ['-S', sock!, 'capture-pane', '-p', '-t', paneId!]).toString()).toContain(
        'tag:nh-two',
      );

      // Asked again: the same pane, nothing moved.
      const again = await runCli(['attach', conv, '--print'], { env, timeoutMs: cl.budget() });
      expect(again.stdout.trim()).toBe(`tmux -S ${sock} attach-session -t ${paneId}`);
      expect(again.stderr).not.toContain('Moving');
      expect(await terminals.listSessions()).toHaveLength(1);

      // A stop of the node lets go of the pane (the person's now); its next start follows it again.
      await node.stop();
      expect(panePid()).toBe(pid);
      await node.start();
      await waitUntil(async () => (await upNodes(cl.front)).includes('n1'), cl.budget());
      const after = await cl.front.post(conv, 'and now? tag:nh-three');
      await watch.waitReply(after.messageId, 'reply', cl.budget());
      expect(prompts('tag:nh-three')).toHaveLength(1);
      expect(prompts('tag:nh-three')[0]!.historyText).toContain('tag:nh-two');
      expect(watch.repliesFor(after.messageId, 'reply')).toHaveLength(1);
      expect(panePid()).toBe(pid);
      for (const tag of ['tag:nh-one', 'tag:nh-two']) expect(prompts(tag)).toHaveLength(1);
      expect(await statesOf(conv)).toEqual({
        [first.messageId]: 'answered',
        [during.messageId]: 'answered',
        [after.messageId]: 'answered',
      });
      watch.close();
    },
  );
});

/** Each message of the conversation and its one outcome, from the front's store (the history the page reads). */
async function statesOf(conv: string): Promise<Record<string, string>> {
  const res = await cl.front.api('GET', `/api/conversations/${conv}/messages`);
  const page = (await res.json()) as { messages: Array<{ id: string; state: string }> };
  return Object.fromEntries(page.messages.map((x) => [x.id, x.state]));
}
