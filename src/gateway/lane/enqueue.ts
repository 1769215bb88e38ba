/** A message that waits in a lane's line: one later turn, the overflow past the cap, or collect mode's window. */
import type { MessageRow } from '../../store/types.js';
import type { LaneSettings } from './deps.js';
import type { LaneInternals } from './internals.js';
import type { QueueItem } from './queue.js';

export type Waiting = 'queued' | 'merged';

/** One later turn, or merged into the overflow item once the queue is at its cap. */
export function enqueue(lane: LaneInternals, row: MessageRow, reason: string, st: LaneSettings): Waiting {
  const { store, replies } = lane.deps;
  if (lane.queue.depth() >= st.queueCap) {
    const item = lane.queue.pushOverflow(row);
    store.inbox.queue([row.id]);
    lane.log.info({ messageId: row.id, queueCap: st.queueCap }, 'queue full: message merged into the overflow summary');
    const others = item.rows.length - 1;
    replies.ack(
      row,
      'queued',
      `the queue is full (${st.queueCap}); this will be merged with ${others} other message(s) into one turn`,
    );
    return 'merged';
  }
  lane.queue.push(row);
  store.inbox.queue([row.id]);
  lane.log.info({ messageId: row.id, reason }, 'message queued');
  replies.ack(row, 'queued', `queued (${lane.queue.depth()} waiting): ${reason}`);
  return 'queued';
}

/** collect mode: joins the messages of the open window (or opens one); `closeIn` runs when it closes. */
export function collect(lane: LaneInternals, row: MessageRow, st: LaneSettings): { waiting: Waiting; item: QueueItem } {
  const { item, merged } = lane.queue.collect(row);
  lane.deps.store.inbox.queue([row.id]);
  const note = merged ? 'merged with the messages just before it' : `collecting messages for ${st.collectWindowMs} ms`;
  lane.deps.replies.ack(row, 'queued', note);
  return { waiting: merged ? 'merged' : 'queued', item };
}
