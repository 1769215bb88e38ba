/**
 * Crashes with agents on a node (real nats-server, real `rudder node` and front processes, the real
 * CLI against the mock): kill -9 of the node mid-turn and its restart (one outcome: the turn runs
 * again once, as locally), kill -9 of the front mid-turn and its restart (the turn that went on on
 * the node is followed again, not run again), and a restart of nats-server under a running turn.
 * Each reply is delivered once; the mock's log shows how often each input reached the model.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { pidAlive, waitUntil } from '../../support/claude-rig.js';
import { type MockApi, type MockRequest, wrappedCopies } from '../../support/mock-anthropic.js';
import { type Cluster, conversationIn, upNodes, useCluster } from '../../support/nodes-rig.js';

let mock: MockApi;
let cl: Cluster;

useCluster([{ name: 'alpha', projects: ['web'] }], (s) => void ({ mock, cl } = s));

function states(home: string): Record<string, string> {
  const db = new Database(path.join(home, 'rudder.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT id, state FROM messages').all() as Array<{ id: string; state: string }>;
    return Object.fromEntries(rows.map((r) => [r.id, r.state]));
  } finally {
    db.close();
  }
}

/** The requests that started a turn for a tag (not the ones after a tool result). */
const turnStarts = (tag: string) => mock.mainRequests().filter((r) => !r.afterTool && r.lastText.includes(tag));
const withTag = (tag: string): MockRequest[] => mock.mainRequests().filter((r) => r.historyText.includes(tag));

describe('crashes with agents on a node', { timeout: 180_000 }, () => {
  it('kill -9 of the node mid-turn and a restart: the turn runs again once, one reply', async () => {
    const node = cl.nodes.alpha!;
    const c = await conversationIn(cl.front, 'web');
    const w = cl.front.watch(c);
    await w.ready;
    const warm = await cl.front.post(c, 'remember tag:n0');
    await w.waitReply(warm.messageId, 'reply', cl.budget());
    const m = await cl.front.post(c, 'slow [[bash:sleep 3]] tag:n1');
    await w.wait('status', (d) => d.state === 'tool', cl.budget());
    const started = node
      .log()
      .split('\n')
      .filter((l) => l.includes('"agent process started"'))
      .map((l) => JSON.parse(l) as { pid: number });
    const agentPid = started.at(-1)!.pid;
    expect(pidAlive(agentPid)).toBe(true);
    await node.signal('SIGKILL');
    await node.start();
    // The node's restart stops the agent its dead run left behind.
    await waitUntil(() => !pidAlive(agentPid), cl.budget());
    const reply = await w.waitReply(m.messageId, 'reply', cl.budget());
    expect(reply.data.text).toBe('done ok');
    const sentinel = await cl.front.post(c, 'sentinel tag:n2');
    await w.waitReply(sentinel.messageId, 'reply', cl.budget());
    expect(w.repliesFor(m.messageId, 'reply')).toHaveLength(1);
    // One re-run notice (a restart slower than the lost threshold also says unreachable, then back).
    const notices = w.repliesFor(m.messageId, 'notice').map((e) => String(e.data.text));
    expect(notices.filter((t) => t.startsWith('↻'))).toEqual([expect.stringMatching(/running your message again/)]);
    expect(notices.filter((t) => t.startsWith('⚠️'))).toEqual([]);
    // Twice to the model (the cut-off attempt and its one re-run), never more; the re-run resumed the session.
    expect(turnStarts('tag:n1')).toHaveLength(2);
    expect(turnStarts('tag:n1').at(-1)!.historyText).toContain('tag:n0');
    // The first attempt carried it once; the re-run resends it after a note (the local rule for a crash).
    expect(wrappedCopies(turnStarts('tag:n1')[0]!, 'tag:n1')).toBe(1);
    expect(states(cl.frontHome)[m.messageId]).toBe('answered');
  });

  it(
    'kill -9 of the front mid-turn and a restart: the turn that went on on the node is followed, ' + 'not run again',
    async () => {
      const c = await conversationIn(cl.front, 'web');
      const w = cl.front.watch(c);
      await w.ready;
      const m = await cl.front.post(c, 'slow [[bash:sleep 3]] tag:f1');
      await w.wait('status', (d) => d.state === 'tool', cl.budget());
      await cl.front.kill9();
      expect(states(cl.frontHome)[m.messageId]).toBe('running');
      const front = await cl.restartFront();
      await waitUntil(async () => (await upNodes(front)).includes('alpha'), cl.budget());
      const w2 = front.watch(c, 0);
      await w2.ready;
      const reply = await w2.waitReply(m.messageId, 'reply', cl.budget());
      expect(reply.data.text).toBe('done ok');
      const sentinel = await front.post(c, 'sentinel tag:f2');
      await w2.waitReply(sentinel.messageId, 'reply', cl.budget());
      expect(w2.repliesFor(m.messageId, 'reply')).toHaveLength(1);
      expect(w2.repliesFor(m.messageId, 'notice').map((e) => e.data.text)).toEqual([]);
      // It reached the model once: the turn was not run again.
      expect(turnStarts('tag:f1')).toHaveLength(1);
      for (const r of withTag('tag:f1')) expect(wrappedCopies(r, 'tag:f1')).toBe(1);
      expect(states(cl.frontHome)[m.messageId]).toBe('answered');
    },
  );

  it('a restart of nats-server under a running turn loses and doubles nothing', async () => {
    const c = await conversationIn(cl.front, 'web');
    const w = cl.front.watch(c);
    await w.ready;
    const m = await cl.front.post(c, 'slow [[bash:sleep 3]] tag:s1');
    await w.wait('status', (d) => d.state === 'tool', cl.budget());
    const natsPid = Number(
      (await import('node:fs')).readFileSync(path.join(cl.frontHome, 'nats', 'nats.pid'), 'utf8').trim(),
    );
    process.kill(natsPid, 'SIGKILL');
    // Sent while the server is down or starting again: accepted, and run after the turn.
    const during = await cl.front.post(c, '/queue followup').then(() => cl.front.post(c, 'meanwhile tag:s2'));
    const r1 = await w.waitReply(m.messageId, 'reply', cl.budget());
    const r2 = await w.waitReply(during.messageId, 'reply', cl.budget());
    expect(r1.data.text).toBe('done ok');
    expect(r2.data.text).toBe('ok tag:s2');
    expect(w.repliesFor(m.messageId, 'reply')).toHaveLength(1);
    expect(w.repliesFor(during.messageId, 'reply')).toHaveLength(1);
    expect(turnStarts('tag:s1')).toHaveLength(1);
    expect(turnStarts('tag:s2')).toHaveLength(1);
    expect(pidAlive(natsPid)).toBe(false);
  });
});
