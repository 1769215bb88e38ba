/** A lane's line of waiting messages (src/gateway/lane/queue.ts): pure operations, no store, no agent. */
import { describe, expect, it } from 'vitest';
import { LaneQueue } from '../../../../src/gateway/lane/queue.js';
import type { MessageRow } from '../../../../src/store/types.js';

let seq = 0;
function row(id: string, over: Partial<MessageRow> = {}): MessageRow {
  return {
    seq: ++seq,
    id,
    conversationId: 'web:q',
    channel: 'web',
    platformMessageId: id,
    senderId: 'owner',
    text: id,
    extra: {},
    sentAt: null,
    receivedAt: 0,
    state: 'queued',
    reason: null,
    wasQueued: true,
    attempts: 0,
    turnId: null,
    retryAt: null,
    heldFor: null,
    ...over,
  };
}
const ids = (rows: MessageRow[] | undefined) => rows?.map((r) => r.id);

describe('LaneQueue', () => {
  it('runs items one at a time, in the order they came, and counts every message waiting', () => {
    const q = new LaneQueue();
    q.push(row('a'));
    q.push(row('b'));
    expect(q.depth()).toBe(2);
    expect(ids(q.takeRunnable()?.rows)).toEqual(['a']);
    expect(ids(q.takeRunnable()?.rows)).toEqual(['b']);
    expect(q.takeRunnable()).toBeUndefined();
  });

  it('collect mode: merges what comes in the window into one item that runs only once the window closes', () => {
    const q = new LaneQueue();
    const first = q.collect(row('a'));
    const second = q.collect(row('b'));
    expect([first.merged, second.merged]).toEqual([false, true]);
    expect(q.takeRunnable()).toBeUndefined();
    q.closeCollect(first.item);
    expect(ids(q.takeRunnable()?.rows)).toEqual(['a', 'b']);
    // After the window, a new message opens a new item.
    expect(q.collect(row('c')).merged).toBe(false);
  });

  it('past the cap: messages join one overflow item at the end, a new one after anything else', () => {
    const q = new LaneQueue();
    q.push(row('a'));
    q.pushOverflow(row('b'));
    q.pushOverflow(row('c'));
    q.push(row('d'));
    q.pushOverflow(row('e'));
    const items = [q.takeRunnable(), q.takeRunnable(), q.takeRunnable(), q.takeRunnable()];
    expect(items.map((i) => ids(i?.rows))).toEqual([['a'], ['b', 'c'], ['d'], ['e']]);
    expect(items.map((i) => !!i?.overflow)).toEqual([false, true, false, true]);
  });

  it('a pending message keeps its place and holds the line until it is ready, with its new row', () => {
    const q = new LaneQueue();
    const pending = q.pushPending(row('voice'));
    q.push(row('after'));
    expect(q.takeRunnable()).toBeUndefined();
    expect(q.withdraw('voice')).toBe('pending');
    q.ready(pending, row('voice', { text: 'transcribed' }));
    expect(q.takeRunnable()?.rows[0]?.text).toBe('transcribed');
    expect(ids(q.takeRunnable()?.rows)).toEqual(['after']);
  });

  it('withdraws and replaces a waiting message; an emptied item leaves the line', () => {
    const q = new LaneQueue();
    const { item } = q.collect(row('a'));
    q.collect(row('b'));
    q.closeCollect(item);
    q.push(row('c'));
    expect(q.replace('b', 'b edited')).toBe(true);
    expect(q.replace('zz', 'x')).toBe(false);
    expect(q.withdraw('a')).toBe('removed');
    expect(q.withdraw('zz')).toBe('absent');
    expect(q.withdraw('c')).toBe('removed');
    expect(q.length).toBe(1);
    expect(q.takeRunnable()?.rows.map((r) => r.text)).toEqual(['b edited']);
  });

  it('puts inputs back where they arrived, before what came later', () => {
    const q = new LaneQueue();
    const early = row('early');
    const late = row('late');
    q.push(late);
    q.putBack([early]);
    expect([ids(q.takeRunnable()?.rows), ids(q.takeRunnable()?.rows)]).toEqual([['early'], ['late']]);
  });

  it('released from a hold: the inputs of one failed turn run together, nothing already in line twice', () => {
    const q = new LaneQueue();
    const waiting = row('w');
    q.push(waiting);
    const a = row('a', { attempts: 1, turnId: 't1', state: 'deferred' });
    const b = row('b', { attempts: 1, turnId: 't1', state: 'deferred' });
    const c = row('c', { attempts: 0, turnId: null, state: 'deferred' });
    const added = q.addReleased([a, b, c, waiting]);
    expect(ids(added)).toEqual(['a', 'b', 'c']);
    expect(q.depth()).toBe(4);
    const order = [q.takeRunnable(), q.takeRunnable(), q.takeRunnable()].map((i) => ids(i?.rows));
    expect(order).toEqual([['w'], ['a', 'b'], ['c']]);
  });

  it('drains everything for a /stop', () => {
    const q = new LaneQueue();
    q.push(row('a'));
    q.pushOverflow(row('b'));
    expect(ids(q.drain())).toEqual(['a', 'b']);
    expect(q.depth()).toBe(0);
  });
});
