/**
 * A message a restart found open (not `accepted`: intake routes those): what was waiting waits
 * again, what was held is held until its time, what a turn had taken in runs again once, unless
 * that turn ran on where Rudder does not (capabilities.reattach): then it is followed again.
 */
import type { AgentSession } from '../../agents/session.js';
import type { MessageRow } from '../../store/types.js';
import { MAX_ATTEMPTS } from './decide.js';
import { holdOf } from './hold.js';
import type { LaneInternals } from './internals.js';
import { RESTART_FAILED_TEXT, RESTART_RERUN_TEXT } from './texts.js';

export type Recovered = 'queued' | 'deferred' | 'rerun' | 'failed' | 'reattached';

export function recoverRow(lane: LaneInternals, row: MessageRow): Recovered {
  const { store, replies } = lane.deps;
  // Held by a spent budget: it waits in line, and the budget is asked again before it runs (it may have been raised).
  if (row.state === 'deferred' && row.heldFor === 'budget') {
    lane.queue.push(row);
    store.inbox.queue([row.id]);
    return 'queued';
  }
  if (row.state === 'deferred') {
    const h = holdOf(row.heldFor);
    lane.hold.start(row.retryAt ?? Date.now(), h.why, h.estimated);
    return 'deferred';
  }
  if (row.state === 'queued') {
    lane.queue.push(row);
    return 'queued';
  }
  if (reattach(lane, row)) return 'reattached';
  if (row.attempts < MAX_ATTEMPTS) {
    // running or steering when Rudder stopped: the turn was cut off.
    lane.queue.push(row);
    store.inbox.queue([row.id]);
    replies.send(lane.conversationId, 'notice', RESTART_RERUN_TEXT, [row]);
    return 'rerun';
  }
  store.inbox.fail([row.id], 'cut off by a restart, twice');
  replies.send(lane.conversationId, 'notice', RESTART_FAILED_TEXT, [row]);
  lane.deps.alerts.failed(lane.conversationId, RESTART_FAILED_TEXT);
  return 'failed';
}

/** The turn a running (or steering) message was in goes on where it runs: follow it again, once per turn. */
function reattach(lane: LaneInternals, row: MessageRow): boolean {
  const { store, pool } = lane.deps;
  const turn = row.turnId ? store.turn(row.turnId) : undefined;
  // A turn whose end is stored is over everywhere: a steer it left unsettled was cut off (run again once).
  if (!turn || turn.endedAt !== null) return false;
  let session: AgentSession;
  try {
    session = pool.sessionFor(lane.conversationId, store.conversation(lane.conversationId)?.sessionId ?? undefined);
  } catch {
    return false;
  }
  if (!session.capabilities.reattach || !session.reattach) return false;
  lane.inFlight.set(row.id, row);
  if (!lane.turnSender.has(turn.id)) {
    lane.turnSender.set(turn.id, row.senderId);
    lane.watch(session);
    session.reattach({ turnId: turn.id, inputIds: turn.inputIds });
    lane.log.info({ turnId: turn.id }, 'following again the turn that went on while Rudder was stopped');
  }
  return true;
}
