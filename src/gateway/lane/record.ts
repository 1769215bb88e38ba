/**
 * What a turn writes as it runs and when it ends, carried out for the lane that follows it (lane.ts):
 * its events to the bus, the step log and the desk; its end to the store (each input's outcome, the
 * turn's record and cost) with the reply in the outbox, in one transaction. It holds no state of its
 * own: the lane decides (decide.ts) and says what to write.
 */
import type { AgentSession, Turn, TurnEvent, TurnResult } from '../../agents/session.js';
import type { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { MessageRow } from '../../store/types.js';
import { turnCost } from '../budget/usage.js';
import type { ResultDecision } from './decide.js';
import type { LaneDeps } from './deps.js';
import { replyText, summarizeInput } from './texts.js';

export class TurnRecorder {
  constructor(
    private readonly deps: LaneDeps,
    private readonly conversationId: string,
    private readonly log: Logger,
  ) {}

  /** The turn's record, its first step and the typing indicator. */
  began(session: AgentSession, turn: Turn, startedAt: number): void {
    const { store, steps, replies } = this.deps;
    const conv = this.conversationId;
    store.turnStarted(turn.id, conv, turn.inputIds(), session.sessionId() ?? null, this.deps.projectOf(conv));
    // The page's live times are the stored ones: a reload shows the same "Done · 0.6 s".
    steps.turnStarted(conv, turn.id, turn.inputIds(), store.turn(turn.id)?.startedAt ?? startedAt);
    replies.typing(conv, true);
  }

  /** `noticeRows`: the messages a notice is attributed to (those it names, else the turn's, else the lane's). */
  event(session: AgentSession, turn: Turn, e: TurnEvent, noticeRows: (named?: string[]) => MessageRow[]): void {
    const { bus, store, desk, replies, steps } = this.deps;
    const conv = this.conversationId;
    const primary = turn.inputIds()[0] ?? null;
    // A permission request reaches the step log through the desk, its one owner.
    if (e.type !== 'permission') steps.record(turn.id, e);
    switch (e.type) {
      case 'text-delta':
        bus.emit(conv, 'text', primary, { delta: e.text, turnId: turn.id });
        return;
      case 'tool-use': {
        const input = summarizeInput(e.input);
        bus.emit(conv, 'status', primary, { state: 'tool', tool: e.name, turnId: turn.id, input }, { ephemeral: true });
        // Kept at once: if the turn is cut off, its re-run tells the agent what it had started.
        store.turnToolStarted(turn.id, { name: e.name, input: input.replace(/\s+/g, ' ') });
        return;
      }
      case 'steer-absorbed':
        bus.emit(conv, 'status', e.inputId, { state: 'steer-absorbed', turnId: turn.id }, { ephemeral: true });
        return;
      case 'permission':
        desk.opened({ conversationId: conv, turnId: turn.id, messageId: primary, request: e.request, session });
        return;
      case 'status': {
        const data = { state: 'agent' as const, message: e.message, turnId: turn.id, ...(e.key ? { key: e.key } : {}) };
        bus.emit(conv, 'status', primary, data, { ephemeral: true });
        // The person is told in the chat: a message waits for the terminal, a menu answer failed.
        if (e.notify) replies.send(conv, 'notice', e.message, noticeRows(e.inputIds));
        return;
      }
      case 'started': {
        const data = { state: 'turn-started' as const, turnId: turn.id, inputIds: e.inputIds };
        bus.emit(conv, 'status', primary, data, { ephemeral: true });
        return;
      }
      default:
        return;
    }
  }

  /**
   * A result: each input's outcome, the reply (to `rows`, the inputs it answers: `ids`), the turn's end and
   * cost, in one transaction; then the turn's permission requests are withdrawn.
   */
  answered(turn: Turn, r: TurnResult, d: ResultDecision, ids: string[], rows: MessageRow[]): void {
    const { store, steps, replies, desk } = this.deps;
    const cost = turnCost(r);
    store.tx(() => {
      for (const o of d.outcomes) {
        if (o.as === 'stop') store.inbox.stop([o.id], o.reason);
        else store.inbox[o.as]([o.id], o.reason);
      }
      if (d.answered.length || d.unprompted) replies.reply(this.conversationId, replyText(r, rows), rows, r.text);
      store.inbox.setTurn(ids, turn.id);
      const at = Date.now();
      store.turnEnded(turn.id, d.turn, r.steered, r.inputIds, r.sessionId ?? null, null, at);
      store.turnCost(turn.id, cost);
      steps.turnEnded(turn.id, { status: d.steps, finalText: r.text, inputIds: r.inputIds, usage: cost }, at);
    });
    desk.withdrawTurn(turn.id);
  }

  /**
   * After a result is written: the ⏹ of what it stopped (`stale`: sent before a /stop the turn began after)
   * and its log line. `stopping`: a /stop or /clear runs.
   */
  afterAnswer(turn: Turn, r: TurnResult, rows: MessageRow[], stale: ReadonlySet<string>, stopping: boolean): void {
    const { store, replies } = this.deps;
    for (const id of stale) {
      const row = store.message(id);
      if (row) replies.ack(row, 'stopped', 'stopped on request');
    }
    // A stop someone asked for says so in its own notice (the /stop reply, the Stop button's notice answering
    // this turn): on the platform the ⏹ is a reaction at most, never a second message.
    if (r.interrupted)
      for (const row of rows)
        replies.ack(row, 'stopped', stopping ? 'stopped on request' : 'interrupted', { reactionOnly: stopping });
    const { costUsd, inputTokens, outputTokens } = turnCost(r);
    const { steered, interrupted, durationMs } = r;
    this.log.info(
      {
        turnId: turn.id,
        inputs: r.inputIds.length,
        steered,
        interrupted,
        durationMs,
        costUsd,
        inputTokens,
        outputTokens,
      },
      `turn done steered=${r.steered}`,
    );
  }

  /** An error: the turn's end, its steps, its permission requests withdrawn; `ids` are the inputs it leaves. */
  failed(session: AgentSession, turn: Turn, err: RudderError, ids: string[]): void {
    const { store, steps, desk } = this.deps;
    store.tx(() => {
      const at = Date.now();
      store.turnEnded(turn.id, 'failed', 0, ids, session.sessionId() ?? null, err.code, at);
      steps.turnEnded(turn.id, { status: 'failed', error: { code: err.code, message: err.message } }, at);
    });
    desk.withdrawTurn(turn.id);
    this.log.warn({ turnId: turn.id, code: err.code, inputs: ids.length, err: err.message }, 'turn failed steered=0');
  }

  /** The page learns which messages the failed turn leaves. */
  failedInputs(err: RudderError, rows: MessageRow[], ids: string[]): void {
    this.deps.bus.emit(this.conversationId, 'error', rows[0]!.id, {
      code: err.code,
      message: err.message,
      messageIds: ids,
    });
  }
}
