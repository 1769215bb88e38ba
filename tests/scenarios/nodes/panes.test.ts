/**
 * The sessions that already run on a node's machine: a Claude Code TUI a person started in a pane of
 * their own tmux server there (named in the node's agent.tmux.discover) is listed by /sessions and the
 * page's "Running now" on the front, with its session and state; /attach and "Continue here" make the
 * node's session for the conversation drive that live pane (a message typed once, answered once, the
 * pane's claude the same process; what the person types there shows as typed in the terminal); a stop
 * of the node only lets go and its start follows the pane again; a turn typed there while the front is down
 * shows once it is back; /detach lets go there. Real NATS, a
 * real node, the real TUI against the mock, real tmux on a socket the test owns.
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { hasTmux } from '../../../src/agents/tmux/pane/tmux.js';
import { waitUntil } from '../../support/claude-rig.js';
import type { EventWatch } from '../../support/gateway-rig.js';
import type { MockApi } from '../../support/mock-anthropic.js';
import { answerOf, type Cluster, conversationIn, upNodes, useCluster } from '../../support/nodes-rig.js';
import { type PersonPane, startPersonPane } from '../../support/person-pane.js';
import { privateSocket } from '../../support/tmux-rig.js';

const tmuxAvailable = await hasTmux();
const socket = privateSocket('node-person');

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

const command = (c: string, text: string) => answerOf(cl, c, text, 'notice');
const message = (c: string, text: string) => answerOf(cl, c, text, 'reply');

/** A prompt the person typed in the pane, shown as typed in the terminal, and its reply, answering no message. */
async function shownAsTyped(w: EventWatch, prompt: string): Promise<void> {
  const typed = await w.wait('reply', (d) => String(d.text).includes(`Typed in the terminal: ${prompt}`), cl.budget());
  expect(typed.data.kind).toBe('notice');
  const tag = /tag:\S+/.exec(prompt)![0];
  const answer = await w.wait('reply', (d) => d.kind === 'reply' && String(d.text).includes(`ok ${tag}`), cl.budget());
  expect(answer.data.messageIds).toEqual([]);
}

const prompts = (tag: string) => mock.requests.filter((q) => !q.side && q.lastText.includes(tag)).length;

describe.skipIf(!tmuxAvailable)("a person's pane on a node's machine", { timeout: 300_000 }, () => {
  let dir: string;
  let sid: string | undefined;
  let pid: number;
  let first: string;

  it(
    '/sessions on the front lists the TUI in the pane on the node with its session and state; /attach, then ' +
      'a message: typed once, answered once, the same process',
    async () => {
      dir = fs.realpathSync(cl.nodes.n1!.dirs.api!);
      pane = await startPersonPane(mock.url, dir, [], socket);
      await pane.waitFor('ready');
      await pane.submit('started at my desk tag:ndesk');
      await mock.waitFor((q) => !q.side && q.lastText.includes('tag:ndesk'), cl.budget());
      await pane.waitFor('ready');
      sid = pane.sessionId();
      expect(sid).toMatch(/^[0-9a-f-]{36}$/);
      pid = pane.pid();

      first = await conversationIn(cl.front, 'api');
      const list = await command(first, '/sessions');
      expect(list).toMatch(
        new RegExp(
          `^Running now in api on node n1:\\n1\\. pane work:0\\.0 · ready · ${sid} · ${dir} · last prompt: ` +
            '“started at my desk tag:ndesk”$',
          'm',
        ),
      );
      // Looking typed nothing.
      expect(prompts('tag:ndesk')).toBe(1);

      expect(await command(first, '/attach 1')).toMatch(
        new RegExp(`^This conversation now drives the claude in pane work:0\\.0 \\(${sid}, ${dir}\\)`),
      );
      expect(await command(first, '/sessions')).toMatch(/^1\. pane work:0\.0 · ready · .*\[attached here\]$/m);

      expect(await message(first, 'from my phone tag:nphone')).toContain('ok tag:nphone');
      expect(prompts('tag:nphone')).toBe(1);
      expect(pane.pid()).toBe(pid);
      expect(pane.sessionId()).toBe(sid);
      expect(await pane.capture()).toContain('from my phone tag:nphone');

      // What the person types there shows in the conversation as typed in the terminal, with its reply.
      const w = cl.front.watch(first);
      await w.ready;
      await pane.waitFor('ready');
      await pane.submit('at my desk again tag:ndesk2');
      await shownAsTyped(w, 'at my desk again tag:ndesk2');
      w.close();
      await pane.waitFor('ready');
    },
  );

  it("the page's Running now lists the node's pane; Continue here is refused while it is driven", async () => {
    const res = await cl.front.api('GET', '/api/projects/api/running');
    expect(res.status).toBe(200);
    const list = (await res.json()) as {
      node?: string;
      servers: string[];
      running: Array<{ attachable: boolean; socket: string; paneId: string; pid: number; label: string }>;
    };
    expect(list.node).toBe('n1');
    expect(list.servers).toEqual([socket]);
    expect(list.running).toHaveLength(1);
    const item = list.running[0]!;
    expect(item).toMatchObject({ attachable: true, label: 'work:0.0', pid, sessionId: sid, cwd: dir });

    const held = await cl.front.api('POST', '/api/projects/api/running/attach', {
      socket: item.socket,
      paneId: item.paneId,
      pid: item.pid,
    });
    expect(held.status).toBe(409);
    expect(((await held.json()) as { error: { code: string } }).error.code).toBe('PANE_HELD');
  });

  it('a stop of the node lets go of the pane; its next start follows it again', async () => {
    const node = cl.nodes.n1!;
    await node.stop();
    expect(pane!.pid()).toBe(pid);
    expect(await pane!.verdict()).toBe('ready');
    await node.start();
    await waitUntil(async () => (await upNodes(cl.front)).includes('n1'), cl.budget());
    // Followed again before any message: what the person types there shows.
    const w = cl.front.watch(first);
    await w.ready;
    await pane!.submit('while nobody wrote tag:nwhile');
    await shownAsTyped(w, 'while nobody wrote tag:nwhile');
    w.close();
    await pane!.waitFor('ready');
    expect(await message(first, 'after the restart tag:nagain')).toContain('ok tag:nagain');
    expect(prompts('tag:nagain')).toBe(1);
    expect(pane!.pid()).toBe(pid);
  });

  it('a turn typed in the pane while the front is down shows in the conversation once the front is back', async () => {
    await cl.front.stop();
    await pane!.waitFor('ready');
    await pane!.submit('while the front was down tag:nfront');
    await mock.waitFor((q) => !q.side && q.lastText.includes('tag:nfront'), cl.budget());
    await pane!.waitFor('ready');
    await cl.restartFront();
    const w = cl.front.watch(first);
    await w.ready;
    await shownAsTyped(w, 'while the front was down tag:nfront');
    w.close();
    expect(prompts('tag:nfront')).toBe(1);
    expect(pane!.pid()).toBe(pid);
  });

  it(
    '/detach lets go on the node (a message is refused while the pane has the session); Continue here then ' +
      'drives the pane from a new conversation',
    async () => {
      expect(await command(first, '/detach')).toMatch(
        /^Let go of pane work:0\.0: it goes on as it was\. .*once the pane has closed it/,
      );
      expect(await command(first, 'after detaching tag:nafter')).toMatch(/still open in the terminal \(pane work:0\.0/);
      expect(prompts('tag:nafter')).toBe(0);

      const list = (await (await cl.front.api('GET', '/api/projects/api/running')).json()) as {
        running: Array<{ socket: string; paneId: string; pid: number }>;
      };
      const { socket: s, paneId, pid: p } = list.running[0]!;
      const res = await cl.front.api('POST', '/api/projects/api/running/attach', { socket: s, paneId, pid: p });
      expect(res.status, await res.clone().text()).toBe(201);
      const second = ((await res.json()) as { id: string }).id;
      expect(await message(second, 'from the page tag:npage')).toContain('ok tag:npage');
      expect(prompts('tag:npage')).toBe(1);
      expect(pane!.pid()).toBe(pid);
    },
  );
});
