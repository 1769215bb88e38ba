/**
 * /stop and /clear on a lane: the running turn is interrupted and everything sent before the command
 * ends as stopped: what waits in line, what was steered but not taken in, what a hold defers. The
 * session survives. Nothing starts while this runs; the caller pumps once it is done.
 */
import type { MessageRow } from '../../store/types.js';
import type { LaneInternals } from './internals.js';

export async function stopLane(
  lane: LaneInternals,
  reason: string,
  cutoffAt: number,
): Promise<{ interrupted: boolean; dropped: MessageRow[] }> {
  const { store } = lane.deps;
  lane.hold.clear();
  lane.unreachable = undefined;
  store.setCutoff(lane.conversationId, cutoffAt);
  const held = store.inbox.held(lane.conversationId);
  const queued = lane.queue.drain();
  const dropped = [...held.filter((h) => !queued.some((q) => q.id === h.id)), ...queued];
  store.inbox.stop(
    dropped.map((r) => r.id),
    reason,
  );
  const session = lane.session();
  const interrupted = !!session?.currentTurn();
  lane.stopping = true;
  try {
    await session?.interrupt({ cancelQueued: true });
    // Give the interrupted turn's outcome handler its turn before sweeping what is left.
    await new Promise((r) => setImmediate(r));
    const running = lane.session()?.currentTurn()?.inputIds() ?? [];
    const leftovers = [...lane.inFlight.values()].filter((r) => !running.includes(r.id));
    store.inbox.stop(
      leftovers.map((r) => r.id),
      reason,
    );
    for (const r of leftovers) lane.forget(r.id);
    return { interrupted, dropped: [...dropped, ...leftovers] };
  } finally {
    lane.stopping = false;
  }
}

/**
 * Rows /stop or /clear already ended (sent before the conversation's cutoff) are marked stopped,
 * with the ⏹ ack; the rest are returned. Every path that would run or hold a message again asks.
 */
export function withoutStopped(lane: LaneInternals, rows: MessageRow[]): MessageRow[] {
  const ended = rows.filter((r) => lane.sentBeforeCutoff(r));
  if (ended.length === 0) return rows;
  lane.deps.store.inbox.stop(
    ended.map((r) => r.id),
    'stopped on request',
  );
  for (const r of ended) {
    lane.forget(r.id);
    lane.deps.replies.ack(r, 'stopped', 'stopped on request');
  }
  lane.log.info({ messages: ended.map((r) => r.id) }, 'sent before /stop or /clear: stopped, not run again');
  return rows.filter((r) => !ended.includes(r));
}
