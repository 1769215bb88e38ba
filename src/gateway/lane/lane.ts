/**
 * A lane: one per conversation, strictly ordered (a later message never overtakes an earlier one).
 * It is the one owner, and the only writer, of the conversation's running state: what it is doing (one
 * value, state.ts, changed by `to`), its hold beside that (hold.ts), its line (queue.ts) and what it knows
 * of the inputs it handed to the agent (inputs.ts). The steps decide, as pure functions of what the lane
 * shows them: where a message goes (arrive.ts), steering (steer.ts), starting (start.ts), holding
 * (held.ts), stopping (stop.ts), recovering after a restart (recover.ts), a turn's end (decide.ts) and
 * what a re-run says (rerun.ts). The lane carries their decisions out: the store, the agent, the replies;
 * record.ts writes what a turn streams and how it ends.
 *
 * Ordering and concurrency: every method runs synchronously up to where it says it waits, so nothing
 * starts in between (the event loop is the lane's lock). What reaches the agent is written first and
 * handed over once that is committed (store.afterCommit): a start, a steer. A turn's outcome is written
 * when its result arrives; then the lane runs the next item (pump). A stop waits for the interrupted
 * turn's outcome; nothing starts meanwhile.
 */
import { randomUUID } from 'node:crypto';
import type { AgentSession, Turn, TurnResult, UserInput } from '../../agents/session.js';
import { isRudderError, RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { MessageRow } from '../../store/types.js';
import { HELD_NOTE, heldText } from '../budget/texts.js';
import { composeAgentText, sourceOf } from './agent-text.js';
import { type ArrivalView, collectNote, decideArrival, lineFor, overflowNote, queuedNote } from './arrive.js';
import { decideError, decideResult, type ErrorDecision, MAX_ATTEMPTS } from './decide.js';
import type { LaneDeps, LaneSettings } from './deps.js';
import { answerFromFallback } from './fallback.js';
import {
  arrivalHold,
  budgetHold,
  type HoldPlan,
  rateLimitHold,
  reachableNotice,
  terminalHold,
  terminalNotice,
  unreachableHold,
  unreachableNotice,
} from './held.js';
import { Hold, type HoldReason } from './hold.js';
import { InputLedger } from './inputs.js';
import { LaneQueue, type QueueItem } from './queue.js';
import { TurnRecorder } from './record.js';
import { decideRecovery, mayFollowAgain, type Recovered } from './recover.js';
import { rerunInput } from './rerun.js';
import { decideHandOver, decideStartFailure, type StartOutcome, turnInputs } from './start.js';
import { type LaneEvent, type LaneState, mayStart, moving, next, pendingStart } from './state.js';
import { ranAsTurnReason, steerBlocker, type Ticket } from './steer.js';
import { followLanding } from './steer-landing.js';
import { droppedByStop, leftoversOf, sentBefore, splitByCutoff, staleInputs } from './stop.js';
import { failureText, RESTART_FAILED_TEXT, RESTART_RERUN_TEXT, rerunText } from './texts.js';

export type Disposition = 'turn' | 'steered' | 'queued' | 'merged';

/** A message that keeps its place in line while something finishes (a voice note's transcription). */
export interface PendingPlace {
  /** It can run now, with its updated row. */
  ready(row: MessageRow): void;
  /** It will not run (the transcription failed). */
  drop(): void;
}

/** What /status and the status report show of a lane. */
export interface LaneSnapshot {
  depth: number;
  inFlight: number;
  held: { until: number; why: HoldReason; estimated: boolean } | undefined;
}

const idsOf = (rows: MessageRow[]) => rows.map((r) => r.id);

export class Lane {
  readonly conversationId: string;
  private state: LaneState = { is: 'idle' };
  private readonly hold = new Hold((why, reason) => this.releaseHeld(why, reason));
  private readonly queue = new LaneQueue();
  private readonly inputs = new InputLedger();
  private readonly log: Logger;
  private readonly recorder: TurnRecorder;
  private collectTimer: NodeJS.Timeout | undefined;
  /** The person was told once that this backend cannot take a message mid-turn. */
  private toldCannotSteer = false;
  /** Sessions whose turns the lane follows (each once). */
  private readonly watched = new WeakSet<AgentSession>();

  constructor(
    conversationId: string,
    private readonly deps: LaneDeps,
  ) {
    this.conversationId = conversationId;
    this.log = deps.log.child({ conversationId });
    this.recorder = new TurnRecorder(deps, conversationId, this.log);
  }

  /** The one writer of the lane's state: every change is a named event (state.ts). */
  private to(e: LaneEvent): void {
    this.state = next(this.state, e);
  }

  session(): AgentSession | undefined {
    return this.deps.pool.peek(this.conversationId);
  }

  /** A turn waits for its commit to be handed over, or the agent works on one. */
  busy(): boolean {
    return pendingStart(this.state) !== undefined || this.agentBusy();
  }

  /** The agent's own state, asked of its session: it can stay busy past a turn's end while a steer settles. */
  private agentBusy(): boolean {
    return this.session()?.state() === 'busy';
  }

  queueDepth(): number {
    return this.queue.depth();
  }

  snapshot(now = Date.now()): LaneSnapshot {
    const h = this.hold;
    return {
      depth: this.queue.depth(),
      inFlight: this.inputs.count(),
      held: h.active(now) ? { until: h.until, why: h.why, estimated: h.estimated } : undefined,
    };
  }

  // ---- a message arrives ----

  /**
   * Routes a committed message; returns what happened to it. A steer is handed to the agent once the
   * message is committed, and the ticket says `queued` instead if the agent could not take it then.
   */
  accept(row: MessageRow): Ticket {
    const settings = this.deps.settings(this.conversationId);
    const session = this.session();
    const way = decideArrival(this.arrivalView(row, settings, session));
    switch (way.to) {
      case 'hold':
        this.holdOnArrival(row, settings);
        return { disposition: 'queued' };
      case 'collect':
        return { disposition: this.collect(row, settings) };
      case 'turn':
        if (this.heldForBudget([row])) return { disposition: 'queued' };
        this.start([row]);
        return { disposition: 'turn' };
      case 'steer':
        return this.steer(session!, row, settings);
      case 'line': {
        if (way.interrupt) void session?.interrupt();
        const disposition = this.enqueue(row, way.reason, settings);
        if (session) this.tellOnceIfCannotSteer(session, row);
        return { disposition };
      }
    }
  }

  /** What decideArrival sees; the review desk and the steering checks are asked only when it needs them. */
  private arrivalView(row: MessageRow, settings: LaneSettings, session: AgentSession | undefined): ArrivalView {
    const busy = this.busy();
    return {
      held: this.hold.active(),
      stopping: this.state.is === 'stopping',
      moving: moving(this.state),
      mode: settings.mode,
      busy,
      // Asked in the same synchronous step as the start: a review action claims its tree only while no turn runs.
      reviewing: () => this.deps.reviewing(this.conversationId),
      waiting: this.queue.length,
      steerBlocker: () => {
        const turnId = session?.currentTurn()?.id ?? pendingStart(this.state)?.turnId;
        return steerBlocker({
          steeringOn: settings.steeringOn,
          steeringOffReason: settings.steeringOffReason,
          canSteer: !!session && session.capabilities.steer !== 'none',
          turnId,
          turnSender: turnId === undefined ? undefined : this.inputs.senderOf(turnId),
          sender: row.senderId,
        });
      },
    };
  }

  /** A message that must wait for something (voice transcription) but keeps its place in line. */
  waitInPlace(row: MessageRow): PendingPlace {
    const item = this.queue.pushPending(row);
    this.deps.store.inbox.queue([row.id]);
    return {
      ready: (updated) => {
        this.queue.ready(item, updated);
        this.pump();
      },
      drop: () => {
        this.queue.remove(item);
        this.pump();
      },
    };
  }

  /** An edit of a message still waiting: the new text replaces the queued one. */
  replaceQueued(messageId: string, text: string): boolean {
    return this.queue.replace(messageId, text);
  }

  /**
   * Takes a waiting message out of line, so it never reaches the agent. Synchronous, so pump()
   * cannot start it in between. 'pending': it waits for a transcription and cannot be taken back.
   */
  withdrawQueued(messageId: string): 'removed' | 'pending' | 'absent' {
    return this.queue.withdraw(messageId);
  }

  /** In line: one later turn, or merged into the overflow item once the queue is at its cap. */
  private enqueue(row: MessageRow, reason: string, settings: LaneSettings): 'queued' | 'merged' {
    const { store, replies } = this.deps;
    const cap = settings.queueCap;
    if (lineFor(this.queue.depth(), cap) === 'overflow') {
      const item = this.queue.pushOverflow(row);
      store.inbox.queue([row.id]);
      this.log.info({ messageId: row.id, queueCap: cap }, 'queue full: message merged into the overflow summary');
      replies.ack(row, 'queued', overflowNote(cap, item.rows.length - 1));
      return 'merged';
    }
    this.queue.push(row);
    store.inbox.queue([row.id]);
    this.log.info({ messageId: row.id, reason }, 'message queued');
    replies.ack(row, 'queued', queuedNote(this.queue.depth(), reason));
    return 'queued';
  }

  /** collect mode: joins the open window (or opens one); every message restarts the window's one timer. */
  private collect(row: MessageRow, settings: LaneSettings): 'queued' | 'merged' {
    const { item, merged } = this.queue.collect(row);
    this.deps.store.inbox.queue([row.id]);
    this.deps.replies.ack(row, 'queued', collectNote(merged, settings.collectWindowMs));
    clearTimeout(this.collectTimer);
    this.collectTimer = setTimeout(() => {
      this.queue.closeCollect(item);
      this.pump();
    }, settings.collectWindowMs);
    return merged ? 'merged' : 'queued';
  }

  // ---- starting a turn ----

  /** Starts the next runnable item when the lane and the agent are free; synchronous, so nothing starts in between. */
  pump(): void {
    if (!mayStart(this.state) || this.hold.active() || this.deps.shuttingDown()) return;
    if (this.agentBusy()) return;
    // A review action (commit, merge, ...) runs on this tree: its end pumps again.
    if (this.deps.reviewing(this.conversationId)) return;
    this.reconcile();
    const item = this.queue.takeRunnable();
    if (!item || this.heldForBudget(item.rows)) return;
    this.start(item.rows, item.overflow);
  }

  /**
   * A turn for rows: written now (the turn, the inputs `running`, an attempt counted) and handed to the agent
   * once that is committed, so the agent never has a message the store could lose. `starting` until then.
   */
  private start(rows: MessageRow[], overflow = false): void {
    if (rows.length === 0) return this.pump();
    const { store, pool } = this.deps;
    const turnId = randomUUID();
    this.to({ on: 'start', turnId, sender: rows[0]!.senderId });
    const conv = store.conversation(this.conversationId);
    let session: AgentSession;
    try {
      session = pool.sessionFor(this.conversationId, conv?.sessionId ?? undefined);
    } catch (err) {
      return this.startEnded(this.startFailed(rows, err, false));
    }
    this.watch(session);
    const sessionId = session.sessionId() ?? conv?.sessionId ?? undefined;
    const project = this.deps.projectOf(this.conversationId);
    const inputs = turnInputs(rows, overflow, (r) => rerunInput(store, r, sessionId));
    const ids = idsOf(rows);
    this.inputs.turnWritten(turnId, rows);
    // The turn each input last ran in (a re-run's cut-off one), named again if this start is given back.
    const before = new Map(ids.map((id) => [id, store.message(id)?.turnId ?? null]));
    store.tx(() => {
      store.inbox.run(ids, turnId);
      store.turnStarted(turnId, this.conversationId, ids, session.sessionId() ?? null, project);
    });
    // Waits for the commit that holds the turn; a steer recorded meanwhile is handed over after it
    // (afterCommit runs in the order asked), and a stop meanwhile is seen in the inputs' stored states.
    store.afterCommit(() => this.startEnded(this.handOver(session, rows, inputs, turnId, before)));
  }

  /** The hand-over is done or could not happen: the lane is no longer `starting`; a failed start runs the next item. */
  private startEnded(outcome: StartOutcome): void {
    this.to({ on: 'start-ended', agentBusy: this.agentBusy() });
    if (outcome === 'failed') this.pump();
  }

  /** After the commit: hands what a stop did not end to the agent (start.ts decides). */
  private handOver(
    session: AgentSession,
    rows: MessageRow[],
    inputs: UserInput[],
    turnId: string,
    before: ReadonlyMap<string, string | null>,
  ): StartOutcome {
    const { store } = this.deps;
    const plan = decideHandOver(rows, (id) => store.message(id)?.state);
    if (plan.do === 'discard') {
      store.tx(() => {
        store.turnDiscarded(turnId);
        this.giveBackTurn(rows, before);
      });
      this.inputs.turnOver(turnId);
      return 'failed';
    }
    if (plan.do === 'narrow') {
      const live = inputs.filter((i) => plan.live.some((r) => r.id === i.id));
      return this.handOver(session, plan.live, live, turnId, before);
    }
    try {
      const turn = session.startTurn({ inputs, turnId });
      if (turn.id !== turnId) this.renameTurn(session, rows, turnId, turn.id);
      return 'started';
    } catch (err) {
      return this.giveBack(rows, turnId, before, err);
    }
  }

  /** A backend that names its turns itself: the records follow its name. */
  private renameTurn(session: AgentSession, rows: MessageRow[], from: string, to: string): void {
    const { store } = this.deps;
    const ids = idsOf(rows);
    const project = this.deps.projectOf(this.conversationId);
    this.inputs.turnOf(to, rows[0]!.senderId, from);
    store.tx(() => {
      store.turnDiscarded(from);
      store.turnStarted(to, this.conversationId, ids, session.sessionId() ?? null, project);
      store.inbox.setTurn(ids, to);
    });
  }

  /** The agent took nothing: the inputs wait as they did, their attempt given back; then as the error says. */
  private giveBack(
    rows: MessageRow[],
    turnId: string,
    before: ReadonlyMap<string, string | null>,
    err: unknown,
  ): StartOutcome {
    const { store } = this.deps;
    const ids = idsOf(rows);
    this.inputs.turnOver(turnId);
    store.tx(() => {
      store.turnDiscarded(turnId);
      store.inbox.queue(ids);
      for (const id of ids) store.inbox.untaken(id);
      this.giveBackTurn(rows, before);
    });
    return this.startFailed(rows, err, true);
  }

  /** A turn discarded before it ran: its messages name the turn they last ran in again (none for a first attempt). */
  private giveBackTurn(rows: MessageRow[], before: ReadonlyMap<string, string | null>): void {
    for (const r of rows) this.deps.store.inbox.setTurn([r.id], before.get(r.id) ?? null);
  }

  /** A start that failed, by what its error means (start.ts): failed with a notice, held, or first in line again. */
  private startFailed(rows: MessageRow[], err: unknown, handingOver: boolean): StartOutcome {
    for (const r of rows) this.inputs.forget(r.id);
    const failure = decideStartFailure(err, handingOver);
    if (failure === 'cannot-start') {
      this.cannotStart(rows, err as RudderError);
      return 'failed';
    }
    if (failure === 'unreachable') {
      this.holdUnreachable(rows, err as RudderError);
      return 'later';
    }
    this.queue.unshift(rows);
    this.log.info({ err: (err as Error).message }, 'turn start deferred');
    return 'later';
  }

  /** No agent can start here (e.g. its project's directory or worktree): say why instead of waiting for ever. */
  private cannotStart(rows: MessageRow[], err: RudderError): void {
    const { store, replies, alerts } = this.deps;
    store.inbox.fail(idsOf(rows), `${err.code}: ${err.message}`);
    replies.send(this.conversationId, 'notice', `⚠️ ${err.message}`, rows);
    alerts.failed(this.conversationId, err.message);
    this.log.warn(
      { code: err.code, err: err.message, messages: rows.length },
      'no agent could be started for this turn',
    );
  }

  /** The first message that waits because the backend cannot take it mid-turn: the person learns once why. */
  private tellOnceIfCannotSteer(session: AgentSession, row: MessageRow): void {
    if (session.capabilities.steer !== 'none' || this.toldCannotSteer) return;
    this.toldCannotSteer = true;
    const { agent } = this.deps.settings(this.conversationId);
    this.deps.replies.send(
      this.conversationId,
      'notice',
      `ⓘ ${agent} cannot take a message while it works: what you send during a turn waits for the turn to end, ` +
        'and is then answered in order.',
      [row],
    );
  }

  // ---- steering ----

  /** Records the message as steering into the running turn (or the one waiting for its commit). */
  private steer(session: AgentSession, row: MessageRow, settings: LaneSettings): Ticket {
    const { store } = this.deps;
    const ticket: Ticket = { disposition: 'steered' };
    this.inputs.handedOver(row);
    store.inbox.steer(row.id, session.currentTurn()?.id ?? pendingStart(this.state)?.turnId ?? 'pending');
    // Handed over once `steering` is committed, after the start it may wait for (afterCommit keeps the order).
    store.afterCommit(() => this.handOverSteer(session, row, settings, ticket));
    return ticket;
  }

  /** After the commit; when nothing reached the agent (its turn ended, a menu shows) the message waits in line. */
  private handOverSteer(session: AgentSession, row: MessageRow, settings: LaneSettings, ticket: Ticket): void {
    const { store, replies } = this.deps;
    // A /stop since it was recorded ended it: it is not handed over.
    if (store.message(row.id)?.state !== 'steering') return;
    const p = session.steer({ id: row.id, text: composeAgentText(row), source: sourceOf(row) });
    if (!p.written) {
      // Nothing reached the agent: the message waits in line, its attempt given back.
      this.inputs.forget(row.id);
      store.tx(() => {
        store.inbox.queue([row.id]);
        store.inbox.untaken(row.id);
      });
      const reason = `not steered: ${p.reason ?? 'the agent process is not running'}`;
      ticket.disposition = this.enqueue(row, reason, settings);
      return;
    }
    replies.ack(row, 'steered', row.text);
    // Taken in at a tool boundary: the person is told when none is coming (it runs next), and when that changes.
    const turnId = session.currentTurn()?.id ?? pendingStart(this.state)?.turnId;
    const unfollow =
      session.capabilities.steer === 'tool-boundary' && turnId ? followLanding(this.deps, row, turnId) : () => {};
    p.then(
      (r) => {
        unfollow();
        this.log.debug({ messageId: row.id, outcome: r.outcome }, 'steer settled');
        if (r.outcome === 'ran-as-turn') this.ranAsTurn(row, r.turn, r.why);
        // A session whose steer outcome comes later than its turn's end (its agent runs elsewhere) is free now.
        else setImmediate(() => this.pump());
      },
      (err) => {
        unfollow();
        this.log.info({ messageId: row.id, code: err?.code }, 'steer withdrawn before the agent took it in');
        store.inbox.untaken(row.id);
        // It may have been the last thing keeping the session busy: the lane puts it back in line, once
        // the turn it was withdrawn with (failing in the same moment) has had its outcome recorded.
        setImmediate(() => this.pump());
      },
    );
  }

  /** The agent ran the steer as its next turn: the ➡️ is corrected and the store says what happened. */
  private ranAsTurn(row: MessageRow, turn: Turn, why: string | undefined): void {
    const { store, replies } = this.deps;
    // A /stop since: the turn is stopped at once and the steer ends as the stop ended it (follow).
    if (store.message(row.id)?.state !== 'steering' || sentBefore(row, this.cutoff())) return;
    const reason = ranAsTurnReason(why);
    this.inputs.ranAsTurn(row.id, reason);
    store.inbox.ranAsTurn(row.id, turn.id, reason);
    replies.ack(row, 'queued', 'ran as the next turn');
  }

  // ---- following a turn ----

  /** Opens the conversation's session now and follows its turns: an attached pane's start in the terminal too. */
  watchSession(): void {
    const conv = this.deps.store.conversation(this.conversationId);
    this.watch(this.deps.pool.sessionFor(this.conversationId, conv?.sessionId ?? undefined));
  }

  private watch(session: AgentSession): void {
    if (this.watched.has(session)) return;
    this.watched.add(session);
    session.onTurn((turn: Turn) => this.follow(session, turn));
    session.onReachable(() => this.reachable());
  }

  /**
   * Follows one turn of the session from its first event to its outcome: the lane's own, one the agent
   * started (a steer it ran as a turn, a message an interrupt put back) or one followed again after a
   * restart. Its outcome is written when the result arrives; its end (turnEnded) then runs the next item.
   */
  private follow(session: AgentSession, turn: Turn): void {
    this.to({ on: 'turn-began' });
    const startedAt = Date.now();
    this.recorder.began(session, turn, startedAt);
    // The agent can take steers written before a /stop into a new turn in the instant before it
    // reads the interrupt: such a turn is stopped at once, and its inputs end as the stop ended them.
    const stale = this.staleOf(startedAt, turn.inputIds());
    if (stale.size > 0 && stale.size === turn.inputIds().length) void session.interrupt().catch(() => undefined);
    const absorbed = new Set<string>();
    turn.onEvent((e) => {
      if (e.type === 'steer-absorbed') absorbed.add(e.inputId);
      this.recorder.event(session, turn, e, (named) => this.noticeRows(turn, named));
    });
    const failure = (err: unknown) => (isRudderError(err) ? err : new RudderError('AGENT_TURN_FAILED', String(err)));
    turn.result
      .then(
        (r) => this.answered(turn, r, absorbed, startedAt),
        (err: unknown) => this.failed(session, turn, failure(err)),
      )
      .catch((err) => this.log.error({ err }, 'recording a turn outcome failed'))
      .finally(() => this.turnEnded(session, turn));
  }

  /** A notice's messages: those it names (a steer still waiting), else the turn's first, else what was handed over. */
  private noticeRows(turn: Turn, named: string[] | undefined): MessageRow[] {
    if (named?.length) return this.rowsOf(named);
    if (turn.inputIds().length) return this.rowsOf(turn.inputIds().slice(0, 1));
    return this.inputs.rows().slice(0, 1);
  }

  /** Inputs sent before the /stop cutoff in a turn that started after it. */
  private staleOf(turnStartedAt: number, ids: string[]): Set<string> {
    return staleInputs(this.cutoff(), turnStartedAt, () => this.rowsOf(ids));
  }

  private rowsOf(ids: string[]): MessageRow[] {
    return ids.map((id) => this.inputs.row(id) ?? this.deps.store.message(id)).filter((r): r is MessageRow => !!r);
  }

  /** A result: each input answered, steered, merged or stopped (decide.ts), and the reply, in one transaction. */
  private answered(turn: Turn, r: TurnResult, absorbed: ReadonlySet<string>, startedAt: number): void {
    const stale = this.staleOf(startedAt, r.inputIds);
    const stopping = this.state.is === 'stopping';
    const d = decideResult(r, {
      absorbed,
      merged: this.inputs.merged(),
      ranAsTurn: this.inputs.ranAsTurnReasons(),
      stale,
      stopping,
    });
    const ids = r.inputIds.filter((id) => !stale.has(id));
    const rows = this.rowsOf(ids);
    this.recorder.answered(turn, r, d, ids, rows);
    for (const id of r.inputIds) this.inputs.forget(id);
    this.recorder.afterAnswer(turn, r, rows, stale, stopping);
  }

  /** An error: what a stop ended stays ended; the rest are held, run again once, or failed (decide.ts). */
  private failed(session: AgentSession, turn: Turn, err: RudderError): void {
    const { store } = this.deps;
    const ids = err.context.unanswered ?? turn.inputIds();
    this.recorder.failed(session, turn, err, ids);
    const all = this.rowsOf(ids);
    if (all.length === 0) return;
    this.recorder.failedInputs(err, all, ids);
    for (const id of ids) this.inputs.forget(id);
    const rows = this.withoutStopped(all);
    if (rows.length === 0) return;
    // A re-run learns from this turn what the agent had done.
    store.inbox.setTurn(idsOf(rows), turn.id);
    const attempts = (row: MessageRow) => store.message(row.id)?.attempts ?? MAX_ATTEMPTS;
    this.afterError(decideError(err.code, rows, attempts, this.deps.shuttingDown()), rows, err);
  }

  private afterError(d: ErrorDecision, rows: MessageRow[], err: RudderError): void {
    switch (d.kind) {
      case 'rate-limited':
        return this.holdRateLimited(rows, err);
      case 'held-back':
        return this.holdBack(rows, err);
      case 'keep-open':
        return;
      case 'stopped':
        this.deps.store.inbox.stop(idsOf(rows), err.message);
        return;
      case 'rerun-or-fail':
        return this.rerunOrFail(d, err);
    }
  }

  /** A crash: run again once, first in line, on the resumed session; after that, failed with a notice. */
  private rerunOrFail(d: Extract<ErrorDecision, { kind: 'rerun-or-fail' }>, err: RudderError): void {
    const { store, replies, alerts } = this.deps;
    const conv = this.conversationId;
    if (d.forgetSession) store.setSessionId(conv, null);
    if (d.again.length) {
      this.queue.unshift(d.again);
      store.inbox.queue(idsOf(d.again));
      this.log.info(
        { code: err.code, messages: d.again.length },
        'running the cut-off turn again on the resumed session',
      );
      replies.send(conv, 'notice', rerunText(err), d.again);
    }
    if (d.failed.length) {
      store.inbox.fail(idsOf(d.failed), `${err.code}: ${err.message}`);
      replies.send(conv, 'notice', `⚠️ ${failureText(err)}`, d.failed);
      alerts.failed(conv, failureText(err));
    }
  }

  /**
   * A followed turn's outcome is written. With the agent free, a release it waited for (/model) is carried
   * out first and its end runs the next item; else the next item runs now.
   */
  private turnEnded(session: AgentSession, turn: Turn): void {
    this.inputs.turnOver(turn.id);
    const agentFree = session.state() !== 'busy';
    const release = agentFree ? this.state.release : undefined;
    this.to({ on: 'turn-ended', agentFree });
    if (agentFree) this.deps.replies.typing(this.conversationId, false);
    if (release === undefined) return this.pump();
    void this.deps.pool.release(this.conversationId, release).finally(() => {
      this.to({ on: 'released' });
      this.pump();
    });
  }

  /** Inputs handed to the agent that no turn will answer any more (a steer withdrawn by a dying process). */
  private reconcile(): void {
    const { store } = this.deps;
    const session = this.session();
    if (session?.state() === 'busy' || session?.currentTurn()) return;
    const lost = this.inputs.rows();
    if (lost.length === 0) return;
    for (const r of lost) this.inputs.forget(r.id);
    const open = this.withoutStopped(
      lost.filter((r) => ['running', 'steering'].includes(store.message(r.id)?.state ?? '')),
    );
    if (open.length === 0) return;
    this.log.warn({ messages: idsOf(open) }, 'inputs handed to the agent were never answered; queued again');
    // Back in line where they arrived: before what came later, after an earlier message run again.
    this.queue.putBack(open);
    store.inbox.queue(idsOf(open));
  }

  // ---- holds ----

  /** Held rows: each stored with why and until when, and the lane's hold started (held.ts decides both). */
  private holdRows(rows: MessageRow[], plan: HoldPlan): void {
    this.deps.store.inbox.hold(idsOf(rows), plan.until, plan.heldFor, plan.stored);
    this.hold.start(plan.until, plan.why, plan.estimated);
  }

  /** Held until the limit resets; the local model answers meanwhile. */
  private holdRateLimited(rows: MessageRow[], err: RudderError): void {
    this.holdRows(rows, rateLimitHold(err, Date.now()));
    void answerFromFallback(this.deps, this.conversationId, rows, this.hold.until, !this.hold.estimated);
  }

  /** The agent's terminal did not take the message (or it never showed up there): it stays owed, tried again later. */
  private holdBack(rows: MessageRow[], err: RudderError): void {
    const plan = terminalHold(err, Date.now());
    this.holdRows(rows, plan);
    this.deps.replies.send(this.conversationId, 'notice', terminalNotice(err, plan.until), rows);
  }

  /**
   * Before a new turn: when the project's daily budget is spent, its inputs wait (held_for budget) until the
   * day ends or /budget raises it, and the person is told once per hold. Returns whether they wait.
   */
  private heldForBudget(rows: MessageRow[]): boolean {
    const spent = this.deps.budgetSpent(this.conversationId);
    if (!spent) return false;
    const { replies } = this.deps;
    const told = this.hold.active() && this.hold.why === 'budget';
    this.holdRows(rows, budgetHold(spent));
    this.log.info(
      { project: spent.project, spentUsd: spent.spent.usd, limitUsd: spent.limitUsd, messages: rows.length },
      'daily budget spent: the turn waits',
    );
    if (!told) replies.send(this.conversationId, 'notice', heldText(spent, Date.now()), rows);
    for (const row of rows) replies.ack(row, 'queued', HELD_NOTE);
    return true;
  }

  /** The agent's machine is lost: held, never failed for it; the person is told once, and again when it is back. */
  private holdUnreachable(rows: MessageRow[], err: RudderError): void {
    this.holdRows(rows, unreachableHold(err, Date.now()));
    if (this.hold.unreachable) return;
    const node = err.context.node;
    this.hold.tellUnreachable({ told: err.message, where: typeof node === 'string' ? node : undefined });
    this.log.warn(
      { messages: rows.length, err: err.message },
      'the agent cannot be reached: messages held until it is back',
    );
    this.deps.replies.send(this.conversationId, 'notice', unreachableNotice(err.message), rows);
  }

  /** A message arriving while the lane is held waits behind what it holds (deferred), for the same reason. */
  private holdOnArrival(row: MessageRow, settings: LaneSettings): void {
    const h = this.hold;
    const plan = arrivalHold(
      { until: h.until, why: h.why, estimated: h.estimated, unreachable: h.unreachable },
      settings.agent,
    );
    this.deps.store.inbox.hold([row.id], plan.until, plan.heldFor, plan.stored);
    this.deps.replies.ack(row, 'queued', plan.note);
    if (plan.fallback) void answerFromFallback(this.deps, this.conversationId, [row], h.until, !h.estimated);
  }

  /** The agent's session says it is reachable again: the person is told, and what was held runs, in order. */
  private reachable(): void {
    const was = this.hold.backReachable();
    const held = was ? this.deps.store.inbox.held(this.conversationId) : [];
    if (was && held.length)
      this.deps.replies.send(this.conversationId, 'notice', reachableNotice(was.where, held.length), held);
    if (held.length || this.hold.why === 'agent-unreachable') this.resume('the agent is reachable again');
  }

  /** Puts held messages back in line (in arrival order) and runs them; how many were held. */
  resume(why: string): number {
    return this.releaseHeld(why, undefined);
  }

  private releaseHeld(why: string, reason: HoldReason | undefined): number {
    this.hold.clear();
    const held = this.withoutStopped(this.deps.store.inbox.held(this.conversationId));
    const added = idsOf(this.queue.addReleased(held));
    this.deps.store.inbox.queue(added);
    if (held.length) this.log.info({ messages: held.length, why }, 'running deferred messages on the agent again');
    // A rate limit's end is news for a person who is not looking; told before the turn can start.
    if (reason === 'rate-limit' && added.length) this.deps.alerts.rateLimitReset(this.conversationId, added);
    this.pump();
    return held.length;
  }

  // ---- /stop, /clear, /model ----

  /**
   * /stop and /clear: ends everything sent before cutoffAt (stop.ts), interrupts the running turn and
   * waits for its outcome; the session survives. Synchronous up to the interrupt: what waits in line
   * and what a hold defers end at once. The lane is `stopping` until it returns; the caller pumps then.
   */
  async stop(reason: string, cutoffAt: number): Promise<{ interrupted: boolean; dropped: MessageRow[] }> {
    const { store } = this.deps;
    clearTimeout(this.collectTimer);
    this.hold.clear();
    this.hold.backReachable();
    store.setCutoff(this.conversationId, cutoffAt);
    const dropped = droppedByStop(store.inbox.held(this.conversationId), this.queue.drain());
    store.inbox.stop(idsOf(dropped), reason);
    const session = this.session();
    const interrupted = !!session?.currentTurn();
    this.to({ on: 'stop' });
    try {
      await session?.interrupt({ cancelQueued: true });
      // Give the interrupted turn's outcome handler its turn before sweeping what is left.
      await new Promise((r) => setImmediate(r));
      const running = this.session()?.currentTurn()?.inputIds() ?? [];
      const leftovers = leftoversOf(this.inputs.rows(), running);
      store.inbox.stop(idsOf(leftovers), reason);
      for (const r of leftovers) this.inputs.forget(r.id);
      return { interrupted, dropped: [...dropped, ...leftovers] };
    } finally {
      this.to({ on: 'stop-ended', agentBusy: this.agentBusy() });
    }
  }

  /** A release (/model): at once when the lane is not busy, else when a turn ends with the agent free. */
  async releaseWhenIdle(reason: string): Promise<void> {
    if (this.busy()) this.to({ on: 'release-asked', reason });
    else await this.deps.pool.release(this.conversationId, reason);
  }

  /**
   * Moves the session to a terminal (a hand-back), only while no turn runs (false: one does; ask again after it).
   * Decided synchronously with the check: the lane is `releasing` (moving) at once, so nothing starts and what
   * arrives waits in line; the session is let go, `move` runs (it makes the conversation follow the terminal's
   * pane), and the line runs there, in order, whatever the move's outcome (failed: on a session of its own again).
   */
  moveWhenIdle(reason: string, move: () => Promise<void>): Promise<void> | false {
    if (this.busy() || this.state.is !== 'idle') return false;
    this.to({ on: 'move' });
    this.log.info({ reason }, 'the session moves to a terminal: messages wait for it');
    return this.deps.pool
      .release(this.conversationId, reason)
      .then(move)
      .finally(() => {
        this.to({ on: 'released' });
        this.pump();
      });
  }

  /**
   * Gives the session to a terminal program (Codex's TUI resumes the thread: one writer at a time), only while no
   * turn runs (false: one does): the session is let go, `open` gives it to the terminal (a failure holds nothing),
   * and what arrives is held, in order, until `resume` (the person is done there, or sends /retry) or `until`.
   */
  handToTerminal(reason: string, until: number, open: () => Promise<void>): Promise<void> | false {
    return this.moveWhenIdle(reason, async () => {
      await open();
      this.hold.start(until, 'terminal-open', false);
    });
  }

  /** The terminal program gave the session back: what it held runs now, in order; how many were held (-1: none). */
  backFromTerminal(): number {
    if (this.hold.why !== 'terminal-open' || !this.hold.active()) return -1;
    return this.resume('the session is back from the terminal');
  }

  /**
   * Rows /stop or /clear already ended (sent before the conversation's cutoff) are marked stopped, with the
   * ⏹ ack; the rest are returned. Every path that would run or hold a message again asks.
   */
  withoutStopped(rows: MessageRow[]): MessageRow[] {
    const { ended, kept } = splitByCutoff(rows, this.cutoff());
    if (ended.length === 0) return rows;
    this.deps.store.inbox.stop(idsOf(ended), 'stopped on request');
    for (const r of ended) {
      this.inputs.forget(r.id);
      this.deps.replies.ack(r, 'stopped', 'stopped on request');
    }
    this.log.info({ messages: idsOf(ended) }, 'sent before /stop or /clear: stopped, not run again');
    return kept;
  }

  /** The send time of the last /stop or /clear (0: none). */
  private cutoff(): number {
    return this.deps.store.conversation(this.conversationId)?.cutoffAt ?? 0;
  }

  // ---- after a restart ----

  /** A message found open after a restart (recover.ts decides). */
  recover(row: MessageRow): Recovered {
    const d = decideRecovery(row, Date.now());
    switch (d.do) {
      case 'queue':
        this.queue.push(row);
        if (d.requeue) this.deps.store.inbox.queue([row.id]);
        return 'queued';
      case 'hold':
        this.hold.start(d.until, d.why, d.estimated);
        return 'deferred';
      case 'follow':
        if (this.followAgain(row)) return 'reattached';
        return d.otherwise === 'rerun' ? this.rerunAfterRestart(row) : this.failAfterRestart(row);
    }
  }

  /** The turn a running (or steering) message was in goes on where it runs: follow it again, once per turn. */
  private followAgain(row: MessageRow): boolean {
    const { store, pool } = this.deps;
    const turn = row.turnId ? store.turn(row.turnId) : undefined;
    if (!mayFollowAgain(turn)) return false;
    let session: AgentSession;
    try {
      session = pool.sessionFor(this.conversationId, store.conversation(this.conversationId)?.sessionId ?? undefined);
    } catch {
      return false;
    }
    if (!session.capabilities.reattach) return false;
    this.inputs.handedOver(row);
    if (this.inputs.follows(turn.id)) return true;
    this.inputs.turnOf(turn.id, row.senderId);
    this.watch(session);
    session.reattach({ turnId: turn.id, inputIds: turn.inputIds });
    this.log.info({ turnId: turn.id }, 'following again the turn that went on while Rudder was stopped');
    return true;
  }

  private rerunAfterRestart(row: MessageRow): Recovered {
    this.queue.push(row);
    this.deps.store.inbox.queue([row.id]);
    this.deps.replies.send(this.conversationId, 'notice', RESTART_RERUN_TEXT, [row]);
    return 'rerun';
  }

  private failAfterRestart(row: MessageRow): Recovered {
    this.deps.store.inbox.fail([row.id], 'cut off by a restart, twice');
    this.deps.replies.send(this.conversationId, 'notice', RESTART_FAILED_TEXT, [row]);
    this.deps.alerts.failed(this.conversationId, RESTART_FAILED_TEXT);
    return 'failed';
  }

  dispose(): void {
    clearTimeout(this.collectTimer);
    this.hold.clear();
  }
}

export type { QueueItem, Ticket };
