/**
 * Steering, for a lane: whether a message may go into the running turn now, handing it over, and
 * what happens when the agent runs it as a turn of its own instead (the model was writing text).
 */
import type { AgentSession, Turn } from '../../agents/session.js';
import type { MessageRow } from '../../store/types.js';
import { composeAgentText, sourceOf } from './agent-text.js';
import { RAN_AS_TURN } from './decide.js';
import type { LaneSettings } from './deps.js';
import type { LaneInternals } from './internals.js';

/** Why the message cannot be steered into the running turn now; undefined when it can. */
export function steerBlocker(
  lane: LaneInternals,
  session: AgentSession | undefined,
  row: MessageRow,
  st: LaneSettings,
): string | undefined {
  if (!st.steeringOn) return `steering is off (${st.steeringOffReason ?? 'config'})`;
  if (!session || session.capabilities.steer === 'none') return 'this backend cannot take a message mid-turn';
  const turn = session.currentTurn();
  if (!turn) return 'no turn is running yet';
  const sender = lane.turnSender.get(turn.id);
  if (sender !== undefined && sender !== row.senderId) return "the running turn is another sender's";
  return undefined;
}

/** Hands the message to the running turn; undefined when it was written, else why not. */
export function steerInto(lane: LaneInternals, session: AgentSession, row: MessageRow): string | undefined {
  const { store, replies } = lane.deps;
  const turn = session.currentTurn();
  const p = session.steer({ id: row.id, text: composeAgentText(row), source: sourceOf(row) });
  if (!p.written) return p.reason ?? 'the agent process is not running';
  lane.inFlight.set(row.id, row);
  store.inbox.steer(row.id, turn?.id ?? 'pending');
  replies.ack(row, 'steered', row.text);
  p.then(
    (r) => {
      lane.log.debug({ messageId: row.id, outcome: r.outcome }, 'steer settled');
      if (r.outcome === 'ran-as-turn') ranAsTurn(lane, row, r.turn);
    },
    (err) => {
      lane.log.info({ messageId: row.id, code: err?.code }, 'steer withdrawn before the agent took it in');
      store.inbox.untaken(row.id);
      // It may have been the last thing keeping the session busy: let the lane put it back in line.
      lane.pump();
    },
  );
  return undefined;
}

/** The agent ran the steer as its next turn: the ➡️ is corrected and the store says what happened. */
function ranAsTurn(lane: LaneInternals, row: MessageRow, turn: Turn): void {
  const { store, replies } = lane.deps;
  // A /stop since: the turn is stopped at once and the steer ends as the stop ended it (outcome.ts).
  if (store.message(row.id)?.state !== 'steering' || lane.sentBeforeCutoff(row)) return;
  lane.ranAsTurn.add(row.id);
  store.inbox.ranAsTurn(row.id, turn.id, RAN_AS_TURN);
  replies.ack(row, 'queued', 'ran as the next turn');
}
