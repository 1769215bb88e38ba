/**
 * A node killed in the middle of a turn and started again after the front found it lost (real front, embedded
 * nats-server, real node and agent against the mock): the person is told it is unreachable, then once that it is
 * back and the turn it lost runs again — never that the turn goes on — and gets one reply. While it is lost, GET
 * /api/status says its conversation waits for it (agent-unreachable).
 */
import { describe, expect, it } from 'vitest';
import { type Cluster, conversationIn, useCluster } from '../../support/nodes-rig.js';

let cl: Cluster;

useCluster([{ name: 'alpha', projects: ['web'] }], (s) => void (cl = s.cl));

describe('a node back after a crash', { timeout: 180_000 }, () => {
  it('says once that the node is back and the turn it lost runs again', async () => {
    const node = cl.nodes.alpha!;
    const c = await conversationIn(cl.front, 'web');
    const w = cl.front.watch(c);
    await w.ready;
    const warm = await cl.front.post(c, 'remember tag:b0');
    await w.waitReply(warm.messageId, 'reply', cl.budget());
    const m = await cl.front.post(c, 'slow [[bash:sleep 3]] tag:b1');
    await w.wait('status', (d) => d.state === 'tool', cl.budget());
    const from = w.events.length;
    await node.signal('SIGKILL');
    await w.wait('status', (d) => String(d.message ?? '').startsWith('⏳ unreachable'), cl.budget());
    // While it is lost, the status says what its conversation waits for.
    const status = (await (await cl.front.api('GET', '/api/status')).json()) as {
      queues: Array<{ conversationId: string; inFlight: number; pausedFor: string | null }>;
    };
    expect(status.queues.find((q) => q.conversationId === `web:${c}`)).toMatchObject({
      inFlight: 1,
      pausedFor: 'agent-unreachable',
    });
    await node.start();
    const reply = await w.waitReply(m.messageId, 'reply', cl.budget());
    expect(reply.data.text).toBe('done ok');
    expect(w.repliesFor(m.messageId, 'reply')).toHaveLength(1);

    const notices = w.repliesFor(m.messageId, 'notice').map((e) => String(e.data.text));
    expect(notices).toEqual([
      expect.stringMatching(/^⏳ unreachable: alpha \(last seen [\d:]+ UTC\)/),
      '↻ alpha is back after a restart that lost this turn; running your message again on the resumed session.',
    ]);
    // Nothing anywhere says the lost turn goes on.
    const said = w.events.slice(from).map((e) => JSON.stringify(e.data));
    expect(said.filter((t) => t.includes('the turn goes on'))).toEqual([]);
    const failed = w.of('turn', (d) => (d.turn as { status: string }).status === 'failed');
    expect(failed.map((e) => (e.data.turn as { error: { message: string } }).error.message)).toEqual([
      expect.stringContaining('Node alpha restarted in the middle of this turn.'),
    ]);
  });
});
