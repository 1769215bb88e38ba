/**
 * What a lane does with each turn the agent runs: stream its events to the bus and the step log,
 * and give every input exactly one outcome when it ends (answered, steered, merged, stopped, held,
 * re-run or failed, as decide.ts says), committing the reply to the outbox in the same transaction.
 */
import type { AgentSession, Turn, TurnEvent, TurnResult } from '../../agents/session.js';
import { isRudderError, RudderError } from '../../errors.js';
import type { MessageRow } from '../../store/types.js';
import { turnCost } from '../budget/usage.js';
import { decideError, decideResult, MAX_ATTEMPTS } from './decide.js';
import { heldBack, rateLimited } from './held.js';
import type { LaneInternals } from './internals.js';
import { failureText, replyText, rerunText, summarizeInput } from './texts.js';

export class TurnOutcomes {
  constructor(private readonly lane: LaneInternals) {}

  private get deps() {
    return this.lane.deps;
  }

  /** Follows one turn of the lane's session from its first event to its outcome. */
  follow(session: AgentSession, turn: Turn): void {
    const { store, steps, replies } = this.deps;
    const conv = this.lane.conversationId;
    const startedAt = Date.now();
    store.turnStarted(turn.id, conv, turn.inputIds(), session.sessionId() ?? null, this.deps.projectOf(conv));
    // The page's live times are the stored ones: a reload shows the same "Done · 0.6 s".
    steps.turnStarted(conv, turn.id, turn.inputIds(), store.turn(turn.id)?.startedAt ?? startedAt);
    replies.typing(conv, true);
    // The agent can take steers written before a /stop into a new turn in the instant before it
    // reads the interrupt: such a turn is stopped at once, and its inputs end as the stop ended them.
    const stale = this.staleInputs(startedAt, turn.inputIds());
    if (stale.size > 0 && stale.size === turn.inputIds().length) void session.interrupt().catch(() => undefined);
    const absorbed = new Set<string>();
    turn.onEvent((e) => {
      if (e.type === 'steer-absorbed') absorbed.add(e.inputId);
      // A permission request reaches the step log through the desk, its one owner.
      if (e.type !== 'permission') steps.record(turn.id, e);
      this.onEvent(session, turn, e);
    });
    turn.result
      .then(
        (r) => this.onResult(turn, r, absorbed, startedAt),
        (err: unknown) =>
          this.onError(session, turn, isRudderError(err) ? err : new RudderError('AGENT_TURN_FAILED', String(err))),
      )
      .catch((err) => this.lane.log.error({ err }, 'recording a turn outcome failed'))
      .finally(() => this.afterTurn(session, turn));
  }

  private afterTurn(session: AgentSession, turn: Turn): void {
    const conv = this.lane.conversationId;
    this.lane.turnSender.delete(turn.id);
    if (session.state() !== 'busy') this.deps.replies.typing(conv, false);
    if (this.lane.pendingRelease && session.state() !== 'busy') {
      const why = this.lane.pendingRelease;
      this.lane.pendingRelease = undefined;
      void this.deps.pool.release(conv, why).finally(() => this.lane.pump());
      return;
    }
    this.lane.pump();
  }

  private onEvent(session: AgentSession, turn: Turn, e: TurnEvent): void {
    const { bus, store, desk, replies } = this.deps;
    const conv = this.lane.conversationId;
    const primary = turn.inputIds()[0] ?? null;
    switch (e.type) {
      case 'text-delta':
        bus.emit(conv, 'text', primary, { delta: e.text, turnId: turn.id });
        return;
      case 'tool-use':
        bus.emit(
          conv,
          'status',
          primary,
          { state: 'tool', tool: e.name, turnId: turn.id, input: summarizeInput(e.input) },
          { ephemeral: true },
        );
        // Kept at once: if the turn is cut off, its re-run tells the agent what it had started.
        store.turnToolStarted(turn.id, { name: e.name, input: summarizeInput(e.input).replace(/\s+/g, ' ') });
        return;
      case 'steer-absorbed':
        bus.emit(conv, 'status', e.inputId, { state: 'steer-absorbed', turnId: turn.id }, { ephemeral: true });
        return;
      case 'permission':
        desk.opened({ conversationId: conv, turnId: turn.id, messageId: primary, request: e.request, session });
        return;
      case 'status':
        bus.emit(
          conv,
          'status',
          primary,
          { state: 'agent', message: e.message, turnId: turn.id, ...(e.key ? { key: e.key } : {}) },
          { ephemeral: true },
        );
        // The person is told in the chat: a message waits for the terminal, a menu answer failed.
        // Attributed to the message it names (a steer still waiting), the turn's, or what the lane handed the agent.
        if (e.notify) replies.send(conv, 'notice', e.message, this.noticeRows(turn, e.inputIds));
        return;
      case 'started':
        bus.emit(
          conv,
          'status',
          primary,
          { state: 'turn-started', turnId: turn.id, inputIds: e.inputIds },
          { ephemeral: true },
        );
        return;
      default:
        return;
    }
  }

  private noticeRows(turn: Turn, named: string[] | undefined): MessageRow[] {
    if (named?.length) return this.rowsOf(named);
    if (turn.inputIds().length) return this.rowsOf(turn.inputIds().slice(0, 1));
    return [...this.lane.inFlight.values()].slice(0, 1);
  }

  /** Inputs sent before the /stop cutoff in a turn that started after it. */
  private staleInputs(turnStartedAt: number, ids: string[]): Set<string> {
    const cutoff = this.deps.store.conversation(this.lane.conversationId)?.cutoffAt ?? 0;
    if (!cutoff || turnStartedAt <= cutoff) return new Set();
    return new Set(
      this.rowsOf(ids)
        .filter((r) => this.lane.sentBeforeCutoff(r))
        .map((r) => r.id),
    );
  }

  private rowsOf(ids: string[]): MessageRow[] {
    return ids
      .map((id) => this.lane.inFlight.get(id) ?? this.deps.store.message(id))
      .filter((r): r is MessageRow => !!r);
  }

  private onResult(turn: Turn, r: TurnResult, absorbed: Set<string>, startedAt: number): void {
    const { store, steps, replies, desk } = this.deps;
    const stale = this.staleInputs(startedAt, r.inputIds);
    const { lane } = this;
    const d = decideResult(r, {
      absorbed,
      merged: lane.merged,
      ranAsTurn: lane.ranAsTurn,
      stale,
      stopping: lane.stopping,
    });
    const ids = r.inputIds.filter((id) => !stale.has(id));
    const rows = this.rowsOf(ids);
    const cost = turnCost(r);
    store.tx(() => {
      for (const o of d.outcomes) {
        if (o.as === 'stop') store.inbox.stop([o.id], o.reason);
        else store.inbox[o.as]([o.id], o.reason);
      }
      if (d.answered.length) replies.reply(lane.conversationId, replyText(r, rows), rows, r.text);
      store.inbox.setTurn(ids, turn.id);
      const at = Date.now();
      store.turnEnded(turn.id, d.turn, r.steered, r.inputIds, r.sessionId ?? null, null, at);
      store.turnCost(turn.id, cost);
      steps.turnEnded(turn.id, { status: d.steps, finalText: r.text, inputIds: r.inputIds, usage: cost }, at);
    });
    desk.withdrawTurn(turn.id);
    for (const id of r.inputIds) lane.forget(id);
    for (const row of this.rowsOf([...stale])) replies.ack(row, 'stopped', 'stopped on request');
    // A stop someone asked for says so in its own notice (the /stop reply, the Stop button's notice answering
    // this turn): on the platform the ⏹ is a reaction at most, never a second message.
    if (r.interrupted)
      for (const row of rows)
        replies.ack(row, 'stopped', lane.stopping ? 'stopped on request' : 'interrupted', {
          reactionOnly: lane.stopping,
        });
    lane.log.info(
      {
        turnId: turn.id,
        inputs: r.inputIds.length,
        steered: r.steered,
        interrupted: r.interrupted,
        durationMs: r.durationMs,
        costUsd: cost.costUsd,
        inputTokens: cost.inputTokens,
        outputTokens: cost.outputTokens,
      },
      `turn done steered=${r.steered}`,
    );
  }

  private onError(session: AgentSession, turn: Turn, err: RudderError): void {
    const { store, bus, steps, desk, replies } = this.deps;
    const { lane } = this;
    const conv = lane.conversationId;
    const ids = err.context.unanswered ?? turn.inputIds();
    store.tx(() => {
      const at = Date.now();
      store.turnEnded(turn.id, 'failed', 0, ids, session.sessionId() ?? null, err.code, at);
      steps.turnEnded(turn.id, { status: 'failed', error: { code: err.code, message: err.message } }, at);
    });
    desk.withdrawTurn(turn.id);
    lane.log.warn({ turnId: turn.id, code: err.code, inputs: ids.length, err: err.message }, 'turn failed steered=0');
    const all = this.rowsOf(ids);
    if (all.length === 0) return;
    bus.emit(conv, 'error', all[0]!.id, { code: err.code, message: err.message, messageIds: ids });
    for (const id of ids) lane.forget(id);
    // What a /stop or /clear ended is never held, re-run or reported as failed, whatever the error.
    const rows = lane.withoutStopped(all);
    if (rows.length === 0) return;
    store.inbox.setTurn(
      rows.map((r) => r.id),
      turn.id,
    ); // a re-run learns from this turn what the agent had done
    const d = decideError(
      err.code,
      rows,
      (r) => store.message(r.id)?.attempts ?? MAX_ATTEMPTS,
      this.deps.shuttingDown(),
    );
    switch (d.kind) {
      case 'rate-limited':
        return rateLimited(this.lane, rows, err);
      case 'held-back':
        return heldBack(this.lane, rows, err);
      case 'keep-open':
        return;
      case 'stopped':
        store.inbox.stop(
          rows.map((r) => r.id),
          err.message,
        );
        return;
      case 'rerun-or-fail':
        if (d.forgetSession) store.setSessionId(conv, null);
        if (d.again.length) {
          lane.queue.unshift(d.again);
          store.inbox.queue(d.again.map((r) => r.id));
          lane.log.info(
            { code: err.code, messages: d.again.length },
            'running the cut-off turn again on the resumed session',
          );
          replies.send(conv, 'notice', rerunText(err), d.again);
        }
        if (d.failed.length) {
          store.inbox.fail(
            d.failed.map((r) => r.id),
            `${err.code}: ${err.message}`,
          );
          replies.send(conv, 'notice', `⚠️ ${failureText(err)}`, d.failed);
          this.deps.alerts.failed(conv, failureText(err));
        }
        return;
    }
  }

  /** Inputs handed to the agent that no turn will answer any more: back in line, in front. */
  reconcile(): void {
    const session = this.lane.session();
    if (session?.state() === 'busy' || session?.currentTurn()) return;
    const lost = [...this.lane.inFlight.values()];
    if (lost.length === 0) return;
    for (const r of lost) this.lane.forget(r.id);
    const open = this.lane.withoutStopped(
      lost.filter((r) => ['running', 'steering'].includes(this.deps.store.message(r.id)?.state ?? '')),
    );
    if (open.length === 0) return;
    this.lane.log.warn(
      { messages: open.map((r) => r.id) },
      'inputs handed to the agent were never answered; queued again',
    );
    // Back in line where they arrived: before what came later, after an earlier message run again.
    this.lane.queue.putBack(open);
    this.deps.store.inbox.queue(open.map((r) => r.id));
  }
}
