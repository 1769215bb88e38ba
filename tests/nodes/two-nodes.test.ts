/**
 * Two nodes behind one front, on this machine: a real nats-server child, two `rudder node`
 * processes with their own projects and data dirs, the real CLI against the mock Messages API.
 * A turn on each runs at the same time, each in its own project's directory on its own node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockApi, startMockApi } from '../support/mock-anthropic.js';
import { type Cluster, conversationIn, startCluster } from '../support/nodes-rig.js';

let mock: MockApi;
let cl: Cluster;

beforeAll(async () => {
  mock = await startMockApi();
  cl = await startCluster(mock.url, [
    { name: 'alpha', projects: ['web'] },
    { name: 'beta', projects: ['api'] },
  ]);
}, 240_000);

afterAll(async () => {
  await cl?.stop();
  await mock?.close();
});

describe('two nodes', () => {
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
  });
});
