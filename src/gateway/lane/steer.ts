/**
 * Steering, for a lane: whether a message may go into the running turn now, handing it over, and
 * what happens when the agent runs it as a turn of its own instead (the model was writing text).
 * The message is recorded as steering first and handed to the agent once that is committed; when
 * the agent cannot take it then (its turn ended, its terminal shows a menu), it waits in line.
 */
import type { AgentSession, Turn } from '../../agents/session.js';
import type { MessageRow } from '../../store/types.js';
import { composeAgentText, sourceOf } from './agent-text.js';
import { RAN_AS_TURN } from './decide.js';
import type { LaneSettings } from './deps.js';
import { enqueue } from './enqueue.js';
import type { LaneInternals } from './internals.js';

/** What happened to a message a lane took: known at once, or once a hand-off after the commit settled it. */
export interface Ticket {
  disposition: 'turn' | 'steered' | 'queued' | 'merged';
}

/** Why the message cannot be steered into the running turn now; undefined when it can. */
export function steerBlocker(
  lane: LaneInternals,
  session: AgentSession | undefined,
  row: MessageRow,
  st: LaneSettings,
): string | undefined {
  if (!st.steeringOn) return `steering is off (${st.steeringOffReason ?? 'config'})`;
  if (!session || session.capabilities.steer === 'none') return 'this backend cannot take a message mid-turn';
  // A turn written but not handed over yet counts: the steer is handed over right after it.
  const turnId = session.currentTurn()?.id ?? lane.pendingStart?.turnId;
  if (!turnId) return 'no turn is running yet';
  const sender = lane.turnSender.get(turnId);
  if (sender !== undefined && sender !== row.senderId) return "the running turn is another sender's";
  return undefined;
}

/** Records the message as steered into the running turn, and hands it over once that is committed. */
export function steerInto(lane: LaneInternals, session: AgentSession, row: MessageRow, st: LaneSettings): Ticket {
  const { store } = lane.deps;
  const ticket: Ticket = { disposition: 'steered' };
  lane.inFlight.set(row.id, row);
  store.inbox.steer(row.id, session.currentTurn()?.id ?? lane.pendingStart?.turnId ?? 'pending');
  store.afterCommit(() => handOver(lane, session, row, st, ticket));
  return ticket;
}

function handOver(lane: LaneInternals, session: AgentSession, row: MessageRow, st: LaneSettings, ticket: Ticket): void {
  const { store, replies } = lane.deps;
  // A /stop since it was recorded ended it: it is not handed over.
  if (store.message(row.id)?.state !== 'steering') return;
  const p = session.steer({ id: row.id, text: composeAgentText(row), source: sourceOf(row) });
  if (!p.written) {
    // Nothing reached the agent: the message waits in line, its attempt given back.
    lane.inFlight.delete(row.id);
    store.tx(() => {
      store.inbox.queue([row.id]);
      store.inbox.untaken(row.id);
    });
    ticket.disposition = enqueue(lane, row, `not steered: ${p.reason ?? 'the agent process is not running'}`, st);
    return;
  }
  replies.ack(row, 'steered', row.text);
  p.then(
    (r) => {
      lane.log.debug({ messageId: row.id, outcome: r.outcome }, 'steer settled');
      if (r.outcome === 'ran-as-turn') ranAsTurn(lane, row, r.turn, r.why);
      // A session whose steer outcome comes later than its turn's end (its agent runs elsewhere) is free now.
      else setImmediate(() => lane.pump());
    },
    (err) => {
      lane.log.info({ messageId: row.id, code: err?.code }, 'steer withdrawn before the agent took it in');
      store.inbox.untaken(row.id);
      // It may have been the last thing keeping the session busy: the lane puts it back in line, once
      // the turn it was withdrawn with (failing in the same moment) has had its outcome recorded.
      setImmediate(() => lane.pump());
    },
  );
}

/** The agent ran the steer as its next turn: the ➡️ is corrected and the store says what happened. */
function ranAsTurn(lane: LaneInternals, row: MessageRow, turn: Turn, why: string | undefined): void {
  const { store, replies } = lane.deps;
  // A /stop since: the turn is stopped at once and the steer ends as the stop ended it (outcome.ts).
  if (store.message(row.id)?.state !== 'steering' || lane.sentBeforeCutoff(row)) return;
  const reason = why ? `ran as the next turn (${why})` : RAN_AS_TURN;
  lane.ranAsTurn.set(row.id, reason);
  store.inbox.ranAsTurn(row.id, turn.id, reason);
  replies.ack(row, 'queued', 'ran as the next turn');
}
