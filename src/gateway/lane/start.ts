/**
 * Starting a turn with a lane's next inputs, in two steps. First, with the conversation's session
 * (resumed, or a new one) and the inputs as the agent sees them (a re-run's note, the overflow's
 * heading), the turn and its inputs' `running` states are written. Then, once that is committed,
 * the inputs are handed to the agent: nothing reaches the agent that a crash could lose from the
 * store, so a restart re-runs it with a note instead of the agent seeing it twice unannounced.
 */
import { randomUUID } from 'node:crypto';
import type { AgentSession, UserInput } from '../../agents/session.js';
import { isRudderError } from '../../errors.js';
import type { MessageRow } from '../../store/types.js';
import { composeAgentText, sourceOf } from './agent-text.js';
import { CANNOT_START } from './decide.js';
import { unreachable } from './held.js';
import type { LaneInternals } from './internals.js';
import { rerunInput } from './rerun.js';

/**
 * started; failed: no agent can start here (the inputs failed, with a notice) or a stop ended them first;
 * later: they run right after the turn the agent started on its own.
 */
export type StartOutcome = 'started' | 'failed' | 'later';

/**
 * `ready` is called with the session before anything is written (the lane follows its turns);
 * `done` once the hand-off happened or could not.
 */
export function startTurn(
  lane: LaneInternals,
  rows: MessageRow[],
  overflow: boolean,
  ready: (session: AgentSession) => void,
  done: (outcome: StartOutcome) => void,
): void {
  const { store } = lane.deps;
  const conv = store.conversation(lane.conversationId);
  let session: AgentSession;
  try {
    session = lane.deps.pool.sessionFor(lane.conversationId, conv?.sessionId ?? undefined);
  } catch (err) {
    return done(cannotStart(lane, rows, err));
  }
  ready(session);
  const sessionId = session.sessionId() ?? conv?.sessionId ?? undefined;
  const project = lane.deps.projectOf(lane.conversationId);
  const inputs: UserInput[] = rows.map((r) => ({
    id: r.id,
    text: composeAgentText(r),
    source: sourceOf(r),
    ...rerunInput(store, r, sessionId),
  }));
  if (overflow) {
    const heading = `[${rows.length} messages arrived while the queue was full; they are merged here]`;
    inputs[0]!.text = `${heading}\n\n${inputs[0]!.text}`;
  }
  const turnId = randomUUID();
  const ids = rows.map((r) => r.id);
  for (const r of rows) lane.inFlight.set(r.id, r);
  for (const r of rows.slice(1)) lane.merged.add(r.id);
  lane.turnSender.set(turnId, rows[0]!.senderId);
  lane.pendingStart = { turnId, sender: rows[0]!.senderId };
  // The turn each input last ran in (a re-run's cut-off one), named again if this start is given back.
  const before = new Map(ids.map((id) => [id, store.message(id)?.turnId ?? null]));
  store.tx(() => {
    store.inbox.run(ids, turnId);
    store.turnStarted(turnId, lane.conversationId, ids, session.sessionId() ?? null, project);
  });
  store.afterCommit(() => {
    lane.pendingStart = undefined;
    done(handOver(lane, session, rows, inputs, turnId, before));
  });
}

function handOver(
  lane: LaneInternals,
  session: AgentSession,
  rows: MessageRow[],
  inputs: UserInput[],
  turnId: string,
  before: ReadonlyMap<string, string | null>,
): StartOutcome {
  const { store } = lane.deps;
  const project = lane.deps.projectOf(lane.conversationId);
  // A /stop since the turn was written ended some (or all) of its inputs: those are not handed over.
  const live = rows.filter((r) => store.message(r.id)?.state === 'running');
  if (live.length < rows.length) {
    if (live.length === 0) {
      store.tx(() => {
        store.turnDiscarded(turnId);
        giveBackTurn(lane, rows, before);
      });
      lane.turnSender.delete(turnId);
      return 'failed';
    }
    return handOver(
      lane,
      session,
      live,
      inputs.filter((i) => live.some((r) => r.id === i.id)),
      turnId,
      before,
    );
  }
  const ids = rows.map((r) => r.id);
  try {
    const turn = session.startTurn({ inputs, turnId });
    if (turn.id !== turnId) {
      // A backend that names its turns itself: the records follow its name.
      lane.turnSender.set(turn.id, rows[0]!.senderId);
      lane.turnSender.delete(turnId);
      store.tx(() => {
        store.turnDiscarded(turnId);
        store.turnStarted(turn.id, lane.conversationId, ids, session.sessionId() ?? null, project);
        store.inbox.setTurn(ids, turn.id);
      });
    }
    return 'started';
  } catch (err) {
    // Nothing was handed over: the inputs wait as they did, their attempt given back.
    lane.turnSender.delete(turnId);
    store.tx(() => {
      store.turnDiscarded(turnId);
      store.inbox.queue(ids);
      for (const id of ids) store.inbox.untaken(id);
      giveBackTurn(lane, rows, before);
    });
    if (isRudderError(err) && CANNOT_START.has(err.code)) return cannotStart(lane, rows, err);
    for (const r of rows) lane.forget(r.id);
    // Its machine is lost: held until it is back, never failed for that alone.
    if (isRudderError(err, 'AGENT_UNREACHABLE')) {
      unreachable(lane, rows, err);
      return 'later';
    }
    // AGENT_BUSY: the agent started a turn of its own (a queued steer); run these right after it.
    lane.queue.unshift(rows);
    lane.log.info({ err: (err as Error).message }, 'turn start deferred');
    return 'later';
  }
}

/** A turn discarded before it ran: its messages name the turn they last ran in again (none for a first attempt). */
function giveBackTurn(lane: LaneInternals, rows: MessageRow[], before: ReadonlyMap<string, string | null>): void {
  for (const r of rows) lane.deps.store.inbox.setTurn([r.id], before.get(r.id) ?? null);
}

/** No agent can start here (e.g. its project's directory or worktree): say why instead of waiting for ever. */
function cannotStart(lane: LaneInternals, rows: MessageRow[], err: unknown): StartOutcome {
  for (const r of rows) lane.forget(r.id);
  if (!isRudderError(err) || !CANNOT_START.has(err.code)) {
    lane.queue.unshift(rows);
    lane.log.info({ err: (err as Error).message }, 'turn start deferred');
    return 'later';
  }
  lane.deps.store.inbox.fail(
    rows.map((r) => r.id),
    `${err.code}: ${err.message}`,
  );
  lane.deps.replies.send(lane.conversationId, 'notice', `⚠️ ${err.message}`, rows);
  lane.deps.alerts.failed(lane.conversationId, err.message);
  lane.log.warn({ code: err.code, err: err.message, messages: rows.length }, 'no agent could be started for this turn');
  return 'failed';
}
