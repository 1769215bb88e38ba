/**
 * Starting a turn with a lane's next inputs: the conversation's session (resumed, or a new one), the
 * inputs as the agent sees them (a re-run's note, the overflow's heading), their rows marked running.
 */
import type { AgentSession } from '../../agents/session.js';
import { isRudderError } from '../../errors.js';
import type { MessageRow } from '../../store/types.js';
import { composeAgentText, sourceOf } from './agent-text.js';
import { CANNOT_START } from './decide.js';
import type { LaneInternals } from './internals.js';
import { rerunInput } from './rerun.js';

/**
 * started; failed: no agent can start here (the inputs failed, with a notice); later: they run right after
 * the turn the agent started on its own.
 */
export type StartOutcome = 'started' | 'failed' | 'later';

/** `ready` is called with the session before the turn starts (the lane follows its turns). */
export function startTurn(
  lane: LaneInternals,
  rows: MessageRow[],
  overflow: boolean,
  ready: (session: AgentSession) => void,
): StartOutcome {
  const { store, pool, replies } = lane.deps;
  const conv = store.conversation(lane.conversationId);
  try {
    const session = pool.sessionFor(lane.conversationId, conv?.sessionId ?? undefined);
    ready(session);
    const sessionId = session.sessionId() ?? conv?.sessionId ?? undefined;
    const inputs = rows.map((r) => ({
      id: r.id,
      text: composeAgentText(r),
      source: sourceOf(r),
      ...rerunInput(store, r, sessionId),
    }));
    if (overflow) {
      const heading = `[${rows.length} messages arrived while the queue was full; they are merged here]`;
      inputs[0]!.text = `${heading}\n\n${inputs[0]!.text}`;
    }
    for (const r of rows) lane.inFlight.set(r.id, r);
    for (const r of rows.slice(1)) lane.merged.add(r.id);
    const turn = session.startTurn({ inputs });
    lane.turnSender.set(turn.id, rows[0]!.senderId);
    const ids = rows.map((r) => r.id);
    store.tx(() => {
      store.inbox.run(ids, turn.id);
      store.turnStarted(turn.id, lane.conversationId, ids, session.sessionId() ?? null);
    });
    return 'started';
  } catch (err) {
    for (const r of rows) lane.forget(r.id);
    if (isRudderError(err) && CANNOT_START.has(err.code)) {
      // No agent can start here (e.g. its project's directory or worktree): say why instead of waiting for ever.
      store.inbox.fail(
        rows.map((r) => r.id),
        `${err.code}: ${err.message}`,
      );
      replies.send(lane.conversationId, 'notice', `⚠️ ${err.message}`, rows);
      lane.log.warn(
        { code: err.code, err: err.message, messages: rows.length },
        'no agent could be started for this turn',
      );
      return 'failed';
    }
    // AGENT_BUSY: the agent started a turn of its own (a queued steer); run these right after it.
    lane.queue.unshift(rows);
    lane.log.info({ err: (err as Error).message }, 'turn start deferred');
    return 'later';
  }
}
