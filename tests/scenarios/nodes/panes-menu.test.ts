/**
 * A person's pane on a node's machine, attached from the front, on the hard paths: attached while a permission
 * menu of a turn started at the terminal is open (nothing typed into it; the menu offered as buttons on the
 * front; answering it from the page selects the option once), `/stop` during a long tool (Escape, as the TUI's
 * own; the turn stopped and the pane lives), and kill -9 of the node (the pane and its claude go on; the next
 * start drives the same pane). Real NATS, a real node, the real TUI against the mock, real tmux on a socket the
 * test owns.
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { hasTmux } from '../../../src/agents/tmux/pane/tmux.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import type { EventWatch } from '../../support/gateway-rig.js';
import type { MockApi } from '../../support/mock-anthropic.js';
import { type Cluster, conversationIn, upNodes, useCluster } from '../../support/nodes-rig.js';
import { type PersonPane, startPersonPane } from '../../support/person-pane.js';
import { privateSocket } from '../../support/tmux-rig.js';

const tmuxAvailable = await hasTmux();
const socket = privateSocket('node-menu');

let mock: MockApi;
let cl: Cluster;
let pane: PersonPane | undefined;

useCluster(
  [{ name: 'n1', projects: ['api'], agent: { tmux: { discover: [socket] } } }],
  (s) => void ({ mock, cl } = s),
);
afterAll(async () => {
  await pane?.kill();
});

const prompts = (tag: string) => mock.requests.filter((q) => !q.side && q.lastText.includes(tag)).length;

describe.skipIf(!tmuxAvailable)(
  "a person's pane on a node's machine: menus, /stop, kill -9",
  { timeout: 300_000 },
  () => {
    let conv: string;
    let w: EventWatch;
    let pid: number;

    async function command(text: string): Promise<string> {
      const m = await cl.front.post(conv, text);
      return String((await w.waitReply(m.messageId, 'notice', cl.budget())).data.text);
    }
    const answer = (requestId: unknown, allow: boolean) =>
      cl.front.api('POST', `/api/conversations/${conv}/permissions/${String(requestId)}`, { allow });

    it(
      'attached while a menu of a turn started at the terminal is open: nothing typed into it, offered as ' +
        'buttons, answered from the page once',
      async () => {
        const dir = fs.realpathSync(cl.nodes.n1!.dirs.api!);
        pane = await startPersonPane(mock.url, dir, ['--permission-mode', 'manual'], socket);
        await pane.waitFor('ready');
        pid = pane.pid();
        const made = `${tempDir('made')}/by-tool`;
        await pane.submit(`at my desk [[bash:touch ${made}]] tag:nmdesk`);
        await pane.waitFor('menu');

        conv = await conversationIn(cl.front, 'api');
        w = cl.front.watch(conv);
        await w.ready;
        expect(await command('/sessions')).toMatch(/^1\. pane work:0\.0 · a menu is open · /m);
        expect(await command('/attach 1')).toMatch(/^This conversation now drives the claude in pane work:0\.0 /);
        const p = await w.wait('permission', (d) => !d.resolved, cl.budget());
        expect(p.data.toolName).toBe('Bash');
        expect(p.data.input).toMatchObject({ command: `touch ${made}` });

        const b = await cl.front.post(conv, 'meanwhile from my phone tag:nmwait');
        // A menu takes no text: the message waits; the pane still shows the menu and not the message.
        await w.wait('ack', (d) => d.messageId === b.messageId, cl.budget());
        await new Promise((r) => setTimeout(r, 1500));
        expect(await pane.verdict()).toBe('menu');
        expect(await pane.capture()).not.toContain('tag:nmwait');

        expect((await answer(p.data.requestId, true)).status).toBe(200);
        await waitUntil(() => fs.existsSync(made), cl.budget());
        expect((await answer(p.data.requestId, true)).status).toBe(404);
        expect((await w.waitReply(b.messageId, 'reply', cl.budget())).data.text).toContain('ok tag:nmwait');
        expect(prompts('tag:nmwait')).toBe(1);
        expect(prompts('tag:nmdesk')).toBe(1);
        expect(pane.pid()).toBe(pid);
      },
    );

    it('/stop during a long tool stops the turn; the pane and its claude live', async () => {
      const made = `${tempDir('made')}/by-long-tool`;
      await pane!.waitFor('ready');
      const a = await cl.front.post(conv, `long [[bash:touch ${made}; echo start; sleep 20]] tag:nmlong`);
      const isLong = (d: Record<string, unknown>) =>
        !d.resolved && String((d.input as { command?: string }).command).includes('sleep 20');
      const p = await w.wait('permission', isLong, cl.budget());
      expect((await answer(p.data.requestId, true)).status).toBe(200);
      await waitUntil(() => fs.existsSync(made), cl.budget());
      await waitUntil(
        async () => (await pane!.capture()).includes('sleep 20') && (await pane!.verdict()) === 'busy',
        cl.budget(),
      );
      expect(await command('/stop')).toMatch(/stop/i);
      await w.wait('ack', (d) => d.messageId === a.messageId && d.kind === 'stopped', cl.budget());
      await pane!.waitFor('ready', cl.budget());
      expect(pane!.pid()).toBe(pid);
      expect(await pane!.tmux.hasPane(pane!.paneId)).toBe(true);
      expect(prompts('tag:nmlong')).toBe(1);
    });

    it('kill -9 of the node leaves the pane and its claude running; its next start drives the same pane', async () => {
      const node = cl.nodes.n1!;
      await node.signal('SIGKILL');
      expect(pane!.pid()).toBe(pid);
      expect(await pane!.verdict()).toBe('ready');
      await node.start();
      await waitUntil(async () => (await upNodes(cl.front)).includes('n1'), cl.budget());
      const m = await cl.front.post(conv, 'after the node crashed tag:nmcrash');
      expect((await w.waitReply(m.messageId, 'reply', cl.budget())).data.text).toContain('ok tag:nmcrash');
      expect(prompts('tag:nmcrash')).toBe(1);
      expect(pane!.pid()).toBe(pid);
      expect(await pane!.capture()).toContain('tag:nmcrash');
      w.close();
    });
  },
);
