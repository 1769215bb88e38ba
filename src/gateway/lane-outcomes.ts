/**
 * What a lane does with each turn the agent runs: stream its events to the bus, and give every
 * input exactly one outcome when it ends (answered, steered, merged, stopped, deferred, re-run
 * or failed), committing the reply to the outbox in the same transaction.
 */
import type { AgentSession, Turn, TurnEvent, TurnResult } from '../agents/session.js';
import { isRudderError, RudderError } from '../errors.js';
import type { MessageRow } from '../store/types.js';
import type { Disposition, Lane } from './lane.js';
import { RAN_AS_TURN } from './lane-steer.js';

/** A turn cut off by a crash is run again this many times before the person is told it failed. */
export const MAX_ATTEMPTS = 2;
/** When the CLI gives no reset time, try Claude again after this long. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 15 * 60_000;
/** The store's reason of a message held by a rate limit; the second says the reset time is a guess. */
export const RATE_LIMITED = 'rate limited';
export const RATE_LIMITED_ESTIMATED = 'rate limited (reset time estimated)';
/** A message the agent's terminal did not take is tried again after this long (or at /retry). */
const AGENT_HOLD_MS = 60_000;

export class TurnOutcomes {
  constructor(private readonly lane: Lane) {}

  private get ctx() {
    return this.lane.ctx;
  }

  /** Follows one turn of the lane's session from its first event to its outcome. */
  follow(session: AgentSession, turn: Turn): void {
    const conv = this.lane.conversationId;
    const startedAt = Date.now();
    this.ctx.store.turnStarted(turn.id, conv, turn.inputIds(), session.sessionId() ?? null);
    this.ctx.steps.turnStarted(conv, turn.id, turn.inputIds());
    this.ctx.typing(conv, true);
    // The agent can take steers written before a /stop into a new turn in the instant before it
    // reads the interrupt: such a turn is stopped at once, and its inputs end as the stop ended them.
    const stale = this.staleInputs(startedAt, turn.inputIds());
    if (stale.size > 0 && stale.size === turn.inputIds().length) void session.interrupt().catch(() => undefined);
    const absorbed = new Set<string>();
    turn.onEvent((e) => {
      if (e.type === 'steer-absorbed') absorbed.add(e.inputId);
      this.ctx.steps.record(turn.id, e);
      this.onEvent(session, turn, e);
    });
    turn.result
      .then(
        (r) => this.onResult(turn, r, absorbed, startedAt),
        (err: unknown) =>
          this.onError(session, turn, isRudderError(err) ? err : new RudderError('AGENT_TURN_FAILED', String(err))),
      )
      .catch((err) => this.lane.log.error({ err }, 'recording a turn outcome failed'))
      .finally(() => {
        this.lane.turnSender.delete(turn.id);
        if (session.state() !== 'busy') this.ctx.typing(conv, false);
        if (this.lane.pendingRelease && session.state() !== 'busy') {
          const why = this.lane.pendingRelease;
          this.lane.pendingRelease = undefined;
          void this.ctx.pool.release(conv, why).finally(() => this.lane.pump());
          return;
        }
        this.lane.pump();
      });
  }

  private onEvent(session: AgentSession, turn: Turn, e: TurnEvent): void {
    const conv = this.lane.conversationId;
    const primary = turn.inputIds()[0] ?? null;
    switch (e.type) {
      case 'text-delta':
        this.ctx.bus.emit(conv, 'text', primary, { delta: e.text, turnId: turn.id });
        return;
      case 'tool-use':
        this.ctx.bus.emit(
          conv,
          'status',
          primary,
          { state: 'tool', tool: e.name, turnId: turn.id, input: summarize(e.input) },
          { ephemeral: true },
        );
        // Kept at once: if the turn is cut off, its re-run tells the agent what it had started.
        this.ctx.store.turnToolStarted(turn.id, { name: e.name, input: summarize(e.input).replace(/\s+/g, ' ') });
        return;
      case 'steer-absorbed':
        this.ctx.bus.emit(conv, 'status', e.inputId, { state: 'steer-absorbed', turnId: turn.id }, { ephemeral: true });
        return;
      case 'permission':
        this.ctx.permissionOpened(conv, session, e.request, primary, turn.id);
        return;
      case 'status':
        this.ctx.bus.emit(
          conv,
          'status',
          primary,
          { state: 'agent', message: e.message, turnId: turn.id },
          { ephemeral: true },
        );
        // The person is told in the chat: a message waits for the terminal, a menu answer failed.
        // Attributed to the message it names (a steer still waiting), the turn's, or what the lane handed the agent.
        if (e.notify)
          this.ctx.send(
            conv,
            'notice',
            e.message,
            e.inputIds?.length
              ? this.rowsOf(e.inputIds)
              : turn.inputIds().length
                ? this.rowsOf(turn.inputIds().slice(0, 1))
                : [...this.lane.inFlight.values()].slice(0, 1),
          );
        return;
      case 'started':
        this.ctx.bus.emit(
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

  /** Inputs sent before the /stop cutoff in a turn that started after it. */
  private staleInputs(turnStartedAt: number, ids: string[]): Set<string> {
    const cutoff = this.ctx.store.conversation(this.lane.conversationId)?.cutoffAt ?? 0;
    if (!cutoff || turnStartedAt <= cutoff) return new Set();
    return new Set(
      this.rowsOf(ids)
        .filter((r) => this.lane.sentBeforeCutoff(r))
        .map((r) => r.id),
    );
  }

  private rowsOf(ids: string[]): MessageRow[] {
    return ids
      .map((id) => this.lane.inFlight.get(id) ?? this.ctx.store.message(id))
      .filter((r): r is MessageRow => !!r);
  }

  private onResult(turn: Turn, r: TurnResult, absorbed: Set<string>, startedAt: number): void {
    const { store } = this.ctx;
    const stale = this.staleInputs(startedAt, r.inputIds);
    const ids = r.inputIds.filter((id) => !stale.has(id));
    const rows = this.rowsOf(ids);
    const conv = this.lane.conversationId;
    store.tx(() => {
      store.setState([...stale], 'stopped', 'stopped on request');
      if (r.interrupted) {
        store.setState(ids, 'stopped', this.lane.stopping ? 'stopped on request' : 'interrupted');
      } else if (ids.length) {
        for (const id of ids)
          store.setState(
            [id],
            absorbed.has(id) ? 'steered' : this.lane.merged.has(id) ? 'merged' : 'answered',
            this.lane.ranAsTurn.has(id) ? RAN_AS_TURN : null,
          );
        this.ctx.send(conv, 'reply', replyText(r, rows), rows);
      }
      store.setTurn(ids, turn.id);
      store.turnEnded(
        turn.id,
        r.interrupted || ids.length === 0 ? 'interrupted' : 'answered',
        r.steered,
        r.inputIds,
        r.sessionId ?? null,
        null,
      );
      this.ctx.steps.turnEnded(turn.id, {
        status: r.interrupted || ids.length === 0 ? 'stopped' : 'answered',
        finalText: r.text,
        inputIds: r.inputIds,
      });
    });
    this.ctx.withdrawPermissions(turn.id);
    for (const id of r.inputIds) this.lane.forget(id);
    for (const row of this.rowsOf([...stale])) this.ctx.ack(row, 'stopped', 'stopped on request');
    if (r.interrupted)
      for (const row of rows) this.ctx.ack(row, 'stopped', this.lane.stopping ? 'stopped on request' : 'interrupted');
    this.lane.log.info(
      {
        turnId: turn.id,
        inputs: r.inputIds.length,
        steered: r.steered,
        interrupted: r.interrupted,
        durationMs: r.durationMs,
        costUsd: r.costUsd,
      },
      `turn done steered=${r.steered}`,
    );
  }

  private onError(session: AgentSession, turn: Turn, err: RudderError): void {
    const { store, bus } = this.ctx;
    const conv = this.lane.conversationId;
    const ids = err.context.unanswered ?? turn.inputIds();
    store.tx(() => {
      store.turnEnded(turn.id, 'failed', 0, ids, session.sessionId() ?? null, err.code);
      this.ctx.steps.turnEnded(turn.id, { status: 'failed', error: { code: err.code, message: err.message } });
    });
    this.ctx.withdrawPermissions(turn.id);
    this.lane.log.warn(
      { turnId: turn.id, code: err.code, inputs: ids.length, err: err.message },
      'turn failed steered=0',
    );
    const all = this.rowsOf(ids);
    if (all.length === 0) return;
    bus.emit(conv, 'error', all[0]!.id, { code: err.code, message: err.message, messageIds: ids });
    for (const id of ids) this.lane.forget(id);
    // What a /stop or /clear ended is never held, re-run or reported as failed, whatever the error.
    const rows = this.lane.withoutStopped(all);
    if (rows.length === 0) return;
    store.setTurn(
      rows.map((r) => r.id),
      turn.id,
    ); // a re-run learns from this turn what the agent had done
    if (err.code === 'AGENT_RATE_LIMITED') return this.rateLimited(rows, err);
    if (err.code === 'AGENT_NOT_READY' || err.code === 'AGENT_UNDELIVERED') return this.heldBack(rows, err);
    if (err.code === 'AGENT_STOPPED') {
      // Shutdown: the inputs stay open and run again at the next start. /stop and /clear: stopped.
      if (this.ctx.shuttingDown()) return;
      store.setState(
        rows.map((r) => r.id),
        'stopped',
        err.message,
      );
      return;
    }
    if (err.code === 'AGENT_SESSION_NOT_FOUND') store.setSessionId(conv, null);
    const rerun = [
      'AGENT_CRASHED',
      'AGENT_EOF_WITHOUT_RESULT',
      'AGENT_STDIN_BROKEN',
      'AGENT_SESSION_NOT_FOUND',
    ].includes(err.code);
    const again = rerun ? rows.filter((r) => (store.message(r.id)?.attempts ?? MAX_ATTEMPTS) < MAX_ATTEMPTS) : [];
    const failed = rows.filter((r) => !again.includes(r));
    if (again.length) {
      this.lane.queue.unshift({ rows: again });
      for (const r of again) store.markQueued(r.id);
      this.lane.log.info(
        { code: err.code, messages: again.length },
        'running the cut-off turn again on the resumed session',
      );
      this.ctx.send(conv, 'notice', rerunText(err), again);
    }
    if (failed.length) {
      store.setState(
        failed.map((r) => r.id),
        'failed',
        `${err.code}: ${err.message}`,
      );
      this.ctx.send(conv, 'notice', `⚠️ ${userText(err)}`, failed);
    }
  }

  private rateLimited(rows: MessageRow[], err: RudderError): void {
    const known = err.context.resetsAt !== undefined;
    const until = err.context.resetsAt ?? Date.now() + DEFAULT_RATE_LIMIT_WAIT_MS;
    this.ctx.store.defer(
      rows.map((r) => r.id),
      until,
      known ? RATE_LIMITED : RATE_LIMITED_ESTIMATED,
    );
    this.lane.pause(until, 'rate-limit', !known);
    void this.answerFromFallback(rows, this.lane.pausedUntil, !this.lane.pauseEstimated);
  }

  /**
   * The agent's terminal did not take the message (or it never showed up there): it stays owed and runs again after a
   * hold.
   */
  private heldBack(rows: MessageRow[], err: RudderError): void {
    const until = Date.now() + AGENT_HOLD_MS;
    this.ctx.store.defer(
      rows.map((r) => r.id),
      until,
      err.code,
    );
    this.lane.pause(until, 'agent-terminal');
    const when = `${new Date(until).toISOString().slice(11, 19)} UTC`;
    this.ctx.send(
      this.lane.conversationId,
      'notice',
      `⏳ ${err.message} Your message is kept and tried again at ${when}; send /retry to try sooner.`,
      rows,
    );
  }

  /** A message arriving while Claude is rate limited waits in line, answered by the fallback meanwhile. */
  deferWhilePaused(row: MessageRow): Disposition {
    if (this.lane.pauseReason === 'agent-terminal') {
      this.ctx.store.defer([row.id], this.lane.pausedUntil, 'waiting for the agent terminal');
      this.ctx.ack(row, 'queued', 'an earlier message waits for the agent terminal; this runs after it');
      return 'queued';
    }
    this.ctx.store.defer(
      [row.id],
      this.lane.pausedUntil,
      this.lane.pauseEstimated ? RATE_LIMITED_ESTIMATED : RATE_LIMITED,
    );
    this.ctx.ack(row, 'queued', 'Claude is rate limited; this runs when the limit resets');
    void this.answerFromFallback([row], this.lane.pausedUntil, !this.lane.pauseEstimated);
    return 'queued';
  }

  private async answerFromFallback(rows: MessageRow[], until: number, known: boolean): Promise<void> {
    const conv = this.lane.conversationId;
    const when = `${new Date(until).toISOString().slice(11, 16)} UTC${known ? '' : ' (estimated)'}`;
    try {
      const text = await this.ctx.fallback(rows);
      this.ctx.send(
        conv,
        'reply',
        `[local model, Claude is rate limited until ${when}; this message runs on Claude again then]\n\n${text}`,
        rows,
        { fromFallback: true },
      );
    } catch (err) {
      const why = isRudderError(err) ? err.message : String(err);
      this.ctx.send(
        conv,
        'notice',
        `⏳ Claude is rate limited until ${when}. Your message is kept and runs on Claude then; send /retry ` +
          `to try sooner. (No local model answered: ${why})`,
        rows,
      );
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
      lost.filter((r) => ['running', 'steering'].includes(this.ctx.store.message(r.id)?.state ?? '')),
    );
    if (open.length === 0) return;
    this.lane.log.warn(
      { messages: open.map((r) => r.id) },
      'inputs handed to the agent were never answered; queued again',
    );
    // Back in line where they arrived: before what came later, after an earlier message run again.
    this.lane.queue.unshift(...open.map((r) => ({ rows: [r] })));
    this.lane.queue.sort((a, b) => (a.rows[0]?.seq ?? 0) - (b.rows[0]?.seq ?? 0));
    for (const r of open) this.ctx.store.markQueued(r.id);
  }
}

function summarize(input: unknown): string {
  const o = (typeof input === 'object' && input ? input : {}) as Record<string, unknown>;
  const main = ['command', 'file_path', 'path', 'url', 'pattern'].find((k) => typeof o[k] === 'string');
  const s = main ? String(o[main]) : JSON.stringify(input ?? '');
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

function replyText(r: TurnResult, rows: MessageRow[]): string {
  const text = r.text.trim() || '(The agent finished without a text reply.)';
  const voice = rows.map((row) => row.extra.transcript).filter((t): t is string => t !== undefined);
  return voice.length ? `${voice.map((t) => `🎤 “${t}”`).join('\n')}\n\n${text}` : text;
}

/** Told when a cut-off turn runs again, like the notice after a restart of Rudder. */
function rerunText(err: RudderError): string {
  if (err.code === 'AGENT_SESSION_NOT_FOUND')
    return '↻ The saved agent session could not be resumed; running your message again in a new session.';
  return '↻ The agent stopped unexpectedly; running your message again on the resumed session.';
}

function userText(err: RudderError): string {
  switch (err.code) {
    case 'AGENT_TURN_TIMEOUT':
      return 'The turn took too long and was stopped. The session is kept; send your message again to continue.';
    case 'AGENT_CRASHED':
    case 'AGENT_EOF_WITHOUT_RESULT':
    case 'AGENT_STDIN_BROKEN':
      return (
        'The agent stopped in the middle of this turn twice, so it was not answered. The session is ' +
        'kept; send the message again to retry.'
      );
    default:
      return err.message;
  }
}
