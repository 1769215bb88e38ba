/**
 * Presence: a node paused (SIGSTOP) past the lost threshold is unreachable. Messages to its
 * conversations are held (never dropped or failed for that alone), the person is told, and they
 * run in order once the node is back, and the person is told again. A turn running on it goes on.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../../support/claude-rig.js';
import type { MockApi } from '../../support/mock-anthropic.js';
import { type Cluster, conversationIn, upNodes, useCluster } from '../../support/nodes-rig.js';

let mock: MockApi;
let cl: Cluster;

useCluster([{ name: 'alpha', projects: ['web'] }], (s) => void ({ mock, cl } = s));

// Registered after the cluster's own hook, so it runs before the cluster stops.
afterAll(async () => {
  await cl?.nodes.alpha?.signal('SIGCONT');
});

function row(
  home: string,
  id: string,
): { state: string; held_for: string | null; reason: string | null; turn_id: string | null } {
  const db = new Database(path.join(home, 'rudder.db'), { readonly: true });
  try {
    return db.prepare('SELECT state, held_for, reason, turn_id FROM messages WHERE id = ?').get(id) as never;
  } finally {
    db.close();
  }
}

const turnStarts = (tag: string) => mock.mainRequests().filter((r) => !r.afterTool && r.lastText.includes(tag));
const lost = async () => !(await upNodes(cl.front)).includes('alpha');

describe('a node that goes silent', { timeout: 180_000 }, () => {
  it('holds messages while the node is paused, tells the person, and runs them in order when it is back', async () => {
    const node = cl.nodes.alpha!;
    const c = await conversationIn(cl.front, 'web');
    const w = cl.front.watch(c);
    await w.ready;
    const warm = await cl.front.post(c, 'hello tag:p0');
    await w.waitReply(warm.messageId, 'reply', cl.budget());

    await node.signal('SIGSTOP');
    await waitUntil(lost, cl.budget());
    const m1 = await cl.front.post(c, 'while away tag:p1');
    const told = await w.waitReply(m1.messageId, 'notice', cl.budget());
    expect(told.data.text).toMatch(
      /^⏳ .*unreachable: alpha \(last seen \d\d:\d\d:\d\d UTC\)\..*kept and runs when it is back/,
    );
    const m2 = await cl.front.post(c, 'also while away tag:p2');
    expect(m2.disposition).toBe('queued');
    await w.wait('ack', (d) => d.messageId === m2.messageId && d.kind === 'queued');
    // Held before any turn of theirs ran: they name none (not the turn the refused start had made).
    expect(row(cl.frontHome, m1.messageId)).toMatchObject({
      state: 'deferred',
      held_for: 'agent-unreachable',
      turn_id: null,
    });
    expect(row(cl.frontHome, m2.messageId)).toMatchObject({
      state: 'deferred',
      held_for: 'agent-unreachable',
      turn_id: null,
    });
    // Told once, not per message.
    expect(w.of('reply', (d) => String(d.text).startsWith('⏳'))).toHaveLength(1);

    await node.signal('SIGCONT');
    const r1 = await w.waitReply(m1.messageId, 'reply', cl.budget());
    const r2 = await w.waitReply(m2.messageId, 'reply', cl.budget());
    expect(r1.data.text).toBe('ok tag:p1');
    expect(r2.data.text).toBe('ok tag:p2');
    expect(Number(r1.data.seq ?? r1.id)).toBeLessThan(Number(r2.data.seq ?? r2.id));
    const back = w.of('reply', (d) => String(d.text).startsWith('✓'));
    expect(back.map((e) => e.data.text)).toEqual([
      '✓ alpha is reachable again: your 2 held message(s) run now, in order.',
    ]);
    // Nothing lost or doubled: each reply once, each input to the model once.
    for (const m of [m1, m2]) expect(w.repliesFor(m.messageId, 'reply')).toHaveLength(1);
    expect(turnStarts('tag:p1')).toHaveLength(1);
    expect(turnStarts('tag:p2')).toHaveLength(1);
    expect(row(cl.frontHome, m1.messageId).state).toBe('answered');
  });

  it('a turn running when the node is paused goes on when it is back; the person is told both times', async () => {
    const node = cl.nodes.alpha!;
    await waitUntil(async () => !(await lost()), cl.budget());
    const c = await conversationIn(cl.front, 'web');
    const w = cl.front.watch(c);
    await w.ready;
    const m = await cl.front.post(c, 'work [[bash:sleep 2]] tag:q1');
    await w.wait('status', (d) => d.state === 'tool', cl.budget());
    await node.signal('SIGSTOP');
    await waitUntil(lost, cl.budget());
    await w.wait('reply', (d) => String(d.text).includes('unreachable: alpha'), cl.budget());
    await node.signal('SIGCONT');
    const r = await w.waitReply(m.messageId, 'reply', cl.budget());
    expect(r.data.text).toBe('done ok');
    const notices = w.repliesFor(m.messageId, 'notice').map((e) => String(e.data.text));
    expect(notices).toEqual([
      expect.stringMatching(/^⏳ unreachable: alpha .*The turn goes on when it is back/),
      '✓ alpha is reachable again; the turn goes on.',
    ]);
    expect(w.repliesFor(m.messageId, 'reply')).toHaveLength(1);
    expect(turnStarts('tag:q1')).toHaveLength(1);
  });
});
