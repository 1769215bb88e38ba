/**
 * Two nodes behind one front, on this machine: a real nats-server child, two `rudder node`
 * processes with their own projects and data dirs, the real CLI against the mock Messages API.
 * A turn on each runs at the same time, each in its own project's directory on its own node; a
 * steer mid-tool lands in the same remote turn; /stop ends a remote turn.
 */
import { describe, expect, it } from 'vitest';
import type { MockApi } from '../../support/mock-anthropic.js';
import { type Cluster, conversationIn, useCluster } from '../../support/nodes-rig.js';

let mock: MockApi;
let cl: Cluster;

useCluster(
  [
    { name: 'alpha', projects: ['web'] },
    { name: 'beta', projects: ['api'] },
  ],
  (s) => void ({ mock, cl } = s),
);

describe('two nodes', { timeout: 180_000 }, () => {
  it('runs a turn on each node at the same time, each in its own project directory there', async () => {
    const a = await conversationIn(cl.front, 'web');
    const b = await conversationIn(cl.front, 'api');
    const wa = cl.front.watch(a);
    const wb = cl.front.watch(b);
    await Promise.all([wa.ready, wb.ready]);
    const [ma, mb] = await Promise.all([
      cl.front.post(a, '[[bash:sleep 2; pwd]] tag:a1'),
      cl.front.post(b, '[[bash:sleep 2; pwd]] tag:b1'),
    ]);
    const [ra, rb] = await Promise.all([
      wa.waitReply(ma.messageId, 'reply', cl.budget()),
      wb.waitReply(mb.messageId, 'reply', cl.budget()),
    ]);
    expect(ra.data.text).toBe('done ok');
    expect(rb.data.text).toBe('done ok');
    const first = (tag: string) => mock.mainRequests().find((r) => !r.afterTool && r.lastText.includes(tag))!;
    const toolDone = (tag: string) => mock.mainRequests().find((r) => r.afterTool && r.historyText.includes(tag))!;
    // Each tool ran in its own node's project directory.
    expect(toolDone('tag:a1').lastUserText).toContain(cl.nodes.alpha!.dirs.web);
    expect(toolDone('tag:b1').lastUserText).toContain(cl.nodes.beta!.dirs.api);
    // At the same time: each turn's first request came before the other's tool ended.
    expect(first('tag:a1').at).toBeLessThan(toolDone('tag:b1').at);
    expect(first('tag:b1').at).toBeLessThan(toolDone('tag:a1').at);
    // Each input reached the model once, each reply once.
    expect(mock.mainRequests().filter((r) => !r.afterTool && r.lastText.includes('tag:a1'))).toHaveLength(1);
    expect(wa.repliesFor(ma.messageId, 'reply')).toHaveLength(1);
    expect(wb.repliesFor(mb.messageId, 'reply')).toHaveLength(1);
    // What each node's turn cost is counted on the front, for its project (the budgets read it).
    const status = (await (await cl.front.api('GET', '/api/status')).json()) as {
      cost: { projects: Array<{ project: string; turns: number; turnsWithoutCost: number; usd: number }> };
    };
    for (const name of ['web', 'api']) {
      const p = status.cost.projects.find((x) => x.project === name)!;
      expect(p.turns).toBeGreaterThanOrEqual(1);
      expect(p.turnsWithoutCost).toBe(0);
      expect(p.usd).toBeGreaterThan(0);
    }
  });

  it('steers a message sent during a tool on a node into the same turn, with one reply', async () => {
    const c = await conversationIn(cl.front, 'web');
    const w = cl.front.watch(c);
    await w.ready;
    const a = await cl.front.post(c, 'work [[bash:sleep 3]] tag:st1');
    expect(a.disposition).toBe('turn');
    await w.wait('status', (d) => d.state === 'tool', cl.budget());
    const s = await cl.front.post(c, 'and also this tag:st2');
    expect(s.disposition).toBe('steered');
    await w.waitReply(s.messageId, 'reply', cl.budget());
    const sentinel = await cl.front.post(c, 'sentinel tag:st3');
    await w.waitReply(sentinel.messageId, 'reply', cl.budget());
    const replies = w.of('reply', (d) => d.kind === 'reply' && String(d.messageIds) !== sentinel.messageId);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.data.messageIds).toEqual([a.messageId, s.messageId]);
    expect(replies[0]!.data.text).toBe('done ok tag:st2');
    // The model saw the steered text once, in the same turn: the request right after the tool's result.
    const seen = mock.mainRequests().filter((q) => q.lastUserText.includes('tag:st2'));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.afterTool).toBe(true);
    const history = (await (await cl.front.api('GET', `/api/conversations/${c}/messages`)).json()) as {
      messages: Array<{ state: string }>;
    };
    expect(history.messages.map((m) => m.state)).toEqual(['answered', 'steered', 'answered']);
  });

  it('/stop ends a turn running on a node; the session goes on', async () => {
    const c = await conversationIn(cl.front, 'api');
    const w = cl.front.watch(c);
    await w.ready;
    const a = await cl.front.post(c, 'long [[bash:echo start; sleep 30]] tag:stop1');
    await w.wait('status', (d) => d.state === 'tool', cl.budget());
    const stop = await cl.front.post(c, '/stop');
    expect(stop.disposition).toBe('command');
    await w.wait('ack', (d) => d.messageId === a.messageId && d.kind === 'stopped', cl.budget());
    const after = await cl.front.post(c, 'after the stop tag:stop2');
    const r = await w.waitReply(after.messageId, 'reply', cl.budget());
    // The CLI hands the interrupted tool's result over with the next message.
    expect(r.data.text).toMatch(/^(done )?ok tag:stop2$/);
    expect(w.repliesFor(a.messageId, 'reply')).toHaveLength(0);
    const history = (await (await cl.front.api('GET', `/api/conversations/${c}/messages`)).json()) as {
      messages: Array<{ id: string; state: string }>;
    };
    expect(history.messages.find((m) => m.id === a.messageId)?.state).toBe('stopped');
    // The stopped turn never went on: no request carried the tool's result before the next message.
    const inTurn = mock.mainRequests().filter((q) => q.afterTool && q.historyText.includes('tag:stop1'));
    expect(inTurn.filter((q) => !q.lastUserText.includes('tag:stop2'))).toHaveLength(0);
  });
});
