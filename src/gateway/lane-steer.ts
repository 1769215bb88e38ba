/**
 * Steering, for a lane: whether a message may go into the running turn now, handing it over, and
 * what happens when the agent runs it as a turn of its own instead (the model was writing text).
 */
import type { AgentSession, Turn } from '../agents/session.js';
import type { MessageRow } from '../store/types.js';
import { composeAgentText, sourceOf } from './compose.js';
import type { Lane } from './lane.js';
import type { LaneSettings } from './lane-context.js';

/** The store's reason for a steer that ran as a turn of its own. */
export const RAN_AS_TURN = 'ran as the next turn (sent while the agent was writing its reply)';

/** Why the message cannot be steered into the running turn now; undefined when it can. */
export function steerBlocker(
  lane: Lane,
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
export function steerInto(lane: Lane, session: AgentSession, row: MessageRow): string | undefined {
  const turn = session.currentTurn();
  const p = session.steer({ id: row.id, text: composeAgentText(row), source: sourceOf(row) });
  if (!p.written) return p.reason ?? 'the agent process is not running';
  lane.inFlight.set(row.id, row);
  lane.ctx.store.markInTurn([row.id], 'steering', turn?.id ?? 'pending');
  lane.ctx.ack(row, 'steered', row.text);
  p.then(
    (r) => {
      lane.log.debug({ messageId: row.id, outcome: r.outcome }, 'steer settled');
      if (r.outcome === 'ran-as-turn') ranAsTurn(lane, row, r.turn);
    },
    (err) => {
      lane.log.info({ messageId: row.id, code: err?.code }, 'steer withdrawn before the agent took it in');
      lane.ctx.store.untaken(row.id);
      // It may have been the last thing keeping the session busy: let the lane put it back in line.
      lane.pump();
    },
  );
  return undefined;
}

/** The agent ran the steer as its next turn: the ➡️ is corrected and the store says what happened. */
function ranAsTurn(lane: Lane, row: MessageRow, turn: Turn): void {
  const { store } = lane.ctx;
  // A /stop since: the turn is stopped at once and the steer ends as the stop ended it (lane-outcomes).
  if (store.message(row.id)?.state !== 'steering' || lane.sentBeforeCutoff(row)) return;
  lane.ranAsTurn.add(row.id);
  store.tx(() => {
    store.setState([row.id], 'running', RAN_AS_TURN);
    store.setTurn([row.id], turn.id);
  });
  lane.ctx.ack(row, 'queued', 'ran as the next turn');
}
