/**
 * A lane: one per conversation, strictly ordered (a later message never overtakes an earlier one).
 * An idle lane starts a turn. A busy lane, by queue mode:
 *   steer     hand the message to the running turn when the backend can take it now, else followup;
 *   followup  one later turn per message;
 *   collect   messages within a quiet window are merged into one later turn;
 *   interrupt stop the running turn, then run the queue.
 * Steering is only tried with an empty queue: steering past a queued message would overtake it.
 */
import type { AgentSession, Turn } from '../agents/session.js';
import { type ErrorCode, isRudderError } from '../errors.js';
import type { Logger } from '../ops/logger.js';
import type { MessageRow } from '../store/types.js';
import { composeAgentText, sourceOf } from './compose.js';
import type { LaneContext, LaneSettings } from './lane-context.js';
import { TurnOutcomes } from './lane-outcomes.js';
import { steerBlocker, steerInto } from './lane-steer.js';
import { rerunInput } from './rerun.js';

/**
 * Errors that mean no agent can be started for this conversation until something is fixed: retrying would wait for
 * ever.
 */
const CANNOT_START = new Set<ErrorCode>([
  'PROJECT_UNAVAILABLE',
  'PROJECT_UNKNOWN',
  'NOT_A_GIT_REPO',
  'WORKTREE_FAILED',
  'GIT_MISSING',
]);

export type Disposition = 'turn' | 'steered' | 'queued' | 'merged';

export interface QueueItem {
  rows: MessageRow[];
  /** collect mode: still inside its quiet window. */
  collecting?: boolean;
  /** Waiting for something before it can run (a voice note being transcribed). */
  pending?: boolean;
  /** Holds messages that arrived while the queue was full. */
  overflow?: boolean;
  /** Released from a hold (a rate limit): inputs of the same failed turn share the item. */
  held?: boolean;
}

export class Lane {
  readonly conversationId: string;
  readonly queue: QueueItem[] = [];
  /** Inputs handed to the agent (running or steering), not yet settled. */
  readonly inFlight = new Map<string, MessageRow>();
  readonly merged = new Set<string>();
  /** Steers the agent took in only after the running turn ended: each answered by a turn of its own. */
  readonly ranAsTurn = new Set<string>();
  /** The sender of each running turn's first input: steers from someone else wait. */
  readonly turnSender = new Map<string, string>();
  readonly log: Logger;
  pausedUntil = 0;
  /** Why the lane is held: Claude's rate limit, or a message the agent's terminal did not take. */
  pauseReason: 'rate-limit' | 'agent-terminal' = 'rate-limit';
  /** The CLI gave no reset time: pausedUntil is a guess, and every notice says so. */
  pauseEstimated = false;
  private pauseTimer: NodeJS.Timeout | undefined;
  private collectTimer: NodeJS.Timeout | undefined;
  private starting = false;
  private readonly watched = new WeakSet<AgentSession>();
  private readonly outcomes: TurnOutcomes;
  /** Set while /stop or /clear runs, so interrupted inputs are recorded as stopped. */
  stopping = false;
  /** A release (/model) waiting for the running turn to end. */
  pendingRelease: string | undefined;
  private toldCannotSteer = false;

  constructor(
    conversationId: string,
    readonly ctx: LaneContext,
  ) {
    this.conversationId = conversationId;
    this.log = ctx.log.child({ conversationId });
    this.outcomes = new TurnOutcomes(this);
  }

  session(): AgentSession | undefined {
    return this.ctx.pool.peek(this.conversationId);
  }

  busy(): boolean {
    return this.starting || this.session()?.state() === 'busy';
  }

  queueDepth(): number {
    return this.queue.reduce((n, i) => n + i.rows.length, 0);
  }

  /** Routes a committed message; returns what happened to it. */
  accept(row: MessageRow): Disposition {
    const st = this.ctx.settings(this.conversationId);
    if (this.pausedUntil > Date.now()) return this.outcomes.deferWhilePaused(row);
    // Sent after a /stop that is still running: it waits for the stop instead of joining the turn it ends.
    if (this.stopping) return this.enqueue(row, 'a stop is running', st);
    if (st.mode === 'collect') return this.collect(row, st);
    const session = this.session();
    const busy = this.busy();
    if (!busy && this.queue.length === 0) {
      this.start([row]);
      return 'turn';
    }
    let reason = busy ? 'a turn is running' : 'earlier messages are waiting';
    if (busy && this.queue.length === 0 && st.mode === 'steer') {
      const blocker = steerBlocker(this, session, row, st) ?? steerInto(this, session!, row);
      if (!blocker) return 'steered';
      reason = `not steered: ${blocker}`;
    } else if (busy && st.mode === 'interrupt') {
      reason = 'interrupt mode: stopping the running turn first';
      void session?.interrupt();
    } else if (busy && st.mode === 'followup') {
      reason = 'followup mode';
    }
    return this.enqueue(row, reason, st);
  }

  /** Adds a message that must wait for something (voice transcription) but keeps its place in line. */
  acceptPending(row: MessageRow): QueueItem {
    const item: QueueItem = { rows: [row], pending: true };
    this.queue.push(item);
    this.ctx.store.markQueued(row.id);
    return item;
  }

  /** The pending item is ready (or failed and was removed); let the queue move. */
  release(item: QueueItem, row?: MessageRow): void {
    if (row) item.rows[0] = row;
    item.pending = false;
    this.pump();
  }

  removeItem(item: QueueItem): void {
    const i = this.queue.indexOf(item);
    if (i >= 0) this.queue.splice(i, 1);
    this.pump();
  }

  /** An edit of a message still waiting: the new text replaces the queued one. */
  replaceQueued(messageId: string, text: string): boolean {
    for (const item of this.queue) {
      const i = item.rows.findIndex((r) => r.id === messageId);
      if (i >= 0) {
        item.rows[i] = { ...item.rows[i]!, text };
        return true;
      }
    }
    return false;
  }

  /**
   * Takes a waiting message out of line, so it never reaches the agent. Synchronous, so pump()
   * cannot start it in between. 'pending': it waits for a transcription and cannot be taken back.
   */
  withdrawQueued(messageId: string): 'removed' | 'pending' | 'absent' {
    for (const [at, item] of this.queue.entries()) {
      const i = item.rows.findIndex((r) => r.id === messageId);
      if (i < 0) continue;
      if (item.pending) return 'pending';
      item.rows.splice(i, 1);
      if (item.rows.length === 0) this.queue.splice(at, 1);
      return 'removed';
    }
    return 'absent';
  }

  private enqueue(row: MessageRow, reason: string, st: LaneSettings): Disposition {
    if (this.queueDepth() >= st.queueCap) {
      let item = this.queue.at(-1);
      if (!item?.overflow) this.queue.push((item = { rows: [], overflow: true }));
      item.rows.push(row);
      this.ctx.store.markQueued(row.id);
      this.log.info(
        { messageId: row.id, queueCap: st.queueCap },
        'queue full: message merged into the overflow summary',
      );
      this.ctx.ack(
        row,
        'queued',
        `the queue is full (${st.queueCap}); this will be merged with ${item.rows.length - 1} other ` +
          `message(s) into one turn`,
      );
      return 'merged';
    }
    this.queue.push({ rows: [row] });
    this.ctx.store.markQueued(row.id);
    this.log.info({ messageId: row.id, reason }, 'message queued');
    this.ctx.ack(row, 'queued', `queued (${this.queueDepth()} waiting): ${reason}`);
    return 'queued';
  }

  private collect(row: MessageRow, st: LaneSettings): Disposition {
    let item = this.queue.at(-1);
    const merging = !!item?.collecting;
    if (!merging) this.queue.push((item = { rows: [], collecting: true }));
    item!.rows.push(row);
    this.ctx.store.markQueued(row.id);
    this.ctx.ack(
      row,
      'queued',
      merging ? 'merged with the messages just before it' : `collecting messages for ${st.collectWindowMs} ms`,
    );
    clearTimeout(this.collectTimer);
    const open = item!;
    this.collectTimer = setTimeout(() => {
      open.collecting = false;
      this.pump();
    }, st.collectWindowMs);
    return merging ? 'merged' : 'queued';
  }

  /** Starts the next runnable item when the agent is free. */
  pump(): void {
    if (this.starting || this.stopping || this.pausedUntil > Date.now() || this.ctx.shuttingDown()) return;
    const session = this.session();
    if (session?.state() === 'busy') return;
    this.outcomes.reconcile();
    const item = this.queue[0];
    if (!item || item.collecting || item.pending) return;
    this.queue.shift();
    this.start(item.rows, item.overflow);
  }

  start(rows: MessageRow[], overflow = false): void {
    if (rows.length === 0) return this.pump();
    const conv = this.ctx.store.conversation(this.conversationId);
    this.starting = true;
    let failed = false;
    try {
      const session = this.ctx.pool.sessionFor(this.conversationId, conv?.sessionId ?? undefined);
      this.watch(session);
      this.tellOnceIfCannotSteer(session, rows);
      const sessionId = session.sessionId() ?? conv?.sessionId ?? undefined;
      const inputs = rows.map((r) => ({
        id: r.id,
        text: composeAgentText(r),
        source: sourceOf(r),
        ...rerunInput(this.ctx.store, r, sessionId),
      }));
      if (overflow)
        inputs[0]!.text =
          `[${rows.length} messages arrived while the queue was full; they are merged ` + `here]\n\n${inputs[0]!.text}`;
      for (const r of rows) this.inFlight.set(r.id, r);
      for (const r of rows.slice(1)) this.merged.add(r.id);
      const turn = session.startTurn({ inputs });
      this.turnSender.set(turn.id, rows[0]!.senderId);
      this.ctx.store.tx(() => {
        this.ctx.store.markInTurn(
          rows.map((r) => r.id),
          'running',
          turn.id,
        );
        this.ctx.store.turnStarted(
          turn.id,
          this.conversationId,
          rows.map((r) => r.id),
          session.sessionId() ?? null,
        );
      });
    } catch (err) {
      for (const r of rows) this.forget(r.id);
      if (isRudderError(err) && CANNOT_START.has(err.code)) {
        // No agent can start here (e.g. its project's directory or worktree): say why instead of waiting for ever.
        this.ctx.store.setState(
          rows.map((r) => r.id),
          'failed',
          `${err.code}: ${err.message}`,
        );
        this.ctx.send(this.conversationId, 'notice', `⚠️ ${err.message}`, rows);
        this.log.warn(
          { code: err.code, err: err.message, messages: rows.length },
          'no agent could be started for this turn',
        );
        failed = true;
      } else {
        // AGENT_BUSY: the agent started a turn of its own (a queued steer); run these right after it.
        this.queue.unshift({ rows });
        this.log.info({ err: (err as Error).message }, 'turn start deferred');
      }
    } finally {
      this.starting = false;
    }
    if (failed) this.pump();
  }

  /** A backend that cannot do better than a process per message: the person learns once what that costs. */
  private tellOnceIfCannotSteer(session: AgentSession, rows: MessageRow[]): void {
    if (session.capabilities.steer !== 'none' || this.toldCannotSteer) return;
    this.toldCannotSteer = true;
    this.ctx.send(
      this.conversationId,
      'notice',
      'ⓘ This agent backend cannot take a message while it works: what you send during a turn waits for the ' +
        'turn to end, and is then answered in order.',
      rows.slice(0, 1),
    );
  }

  private watch(session: AgentSession): void {
    if (this.watched.has(session)) return;
    this.watched.add(session);
    session.onTurn((turn: Turn) => this.outcomes.follow(session, turn));
  }

  /**
   * /stop and /clear: interrupt the running turn and end everything sent before the command: what
   * waits in line, what was steered but not taken in, what a hold defers. The session survives.
   * Nothing starts while this runs; the caller pumps once it is done (after /clear's reset too).
   */
  async stop(reason: string, cutoffAt: number): Promise<{ interrupted: boolean; dropped: MessageRow[] }> {
    clearTimeout(this.collectTimer);
    clearTimeout(this.pauseTimer);
    this.pausedUntil = 0;
    this.ctx.store.setCutoff(this.conversationId, cutoffAt);
    const held = this.ctx.store.deferredMessages(this.conversationId);
    const queued = this.queue.splice(0).flatMap((i) => i.rows);
    const dropped = [...held.filter((h) => !queued.some((q) => q.id === h.id)), ...queued];
    this.ctx.store.setState(
      dropped.map((r) => r.id),
      'stopped',
      reason,
    );
    const session = this.session();
    const interrupted = !!session?.currentTurn();
    this.stopping = true;
    try {
      await session?.interrupt({ cancelQueued: true });
      // Give the interrupted turn's outcome handler its turn before sweeping what is left.
      await new Promise((r) => setImmediate(r));
      const leftovers = [...this.inFlight.values()].filter(
        (r) => !this.session()?.currentTurn()?.inputIds().includes(r.id),
      );
      this.ctx.store.setState(
        leftovers.map((r) => r.id),
        'stopped',
        reason,
      );
      for (const r of leftovers) this.forget(r.id);
      return { interrupted, dropped: [...dropped, ...leftovers] };
    } finally {
      this.stopping = false;
    }
  }

  /**
   * Rows /stop or /clear already ended (sent before the conversation's cutoff) are marked stopped,
   * with the ⏹ ack; the rest are returned. Every path that would run or hold a message again asks.
   */
  withoutStopped(rows: MessageRow[]): MessageRow[] {
    const ended = rows.filter((r) => this.sentBeforeCutoff(r));
    if (ended.length === 0) return rows;
    this.ctx.store.setState(
      ended.map((r) => r.id),
      'stopped',
      'stopped on request',
    );
    for (const r of ended) {
      this.forget(r.id);
      this.ctx.ack(r, 'stopped', 'stopped on request');
    }
    this.log.info({ messages: ended.map((r) => r.id) }, 'sent before /stop or /clear: stopped, not run again');
    return rows.filter((r) => !ended.includes(r));
  }

  /** Sent before the last /stop or /clear: that command ended it. */
  sentBeforeCutoff(row: MessageRow): boolean {
    const cutoff = this.ctx.store.conversation(this.conversationId)?.cutoffAt ?? 0;
    return (row.sentAt ?? row.receivedAt) < cutoff;
  }

  forget(id: string): void {
    this.inFlight.delete(id);
    this.merged.delete(id);
    this.ranAsTurn.delete(id);
  }

  /**
   * Held until `until` (rate limited, or the agent's terminal did not take a message): hold the queue, then run the
   * deferred messages in order.
   */
  pause(until: number, why: Lane['pauseReason'] = 'rate-limit', estimated = false): void {
    if (until >= this.pausedUntil) this.pauseEstimated = estimated;
    this.pausedUntil = Math.max(this.pausedUntil, until);
    this.pauseReason = why;
    clearTimeout(this.pauseTimer);
    this.pauseTimer = setTimeout(
      () => this.resume(why === 'rate-limit' ? 'the rate limit reset' : 'the agent terminal hold ended'),
      Math.max(0, this.pausedUntil - Date.now()),
    );
    this.pauseTimer.unref();
  }

  /** Puts deferred messages back in line (in arrival order) and runs them. */
  resume(why: string): number {
    clearTimeout(this.pauseTimer);
    this.pausedUntil = 0;
    const deferred = this.withoutStopped(this.ctx.store.deferredMessages(this.conversationId));
    const known = new Set(this.queue.flatMap((i) => i.rows.map((r) => r.id)));
    for (const row of deferred) {
      if (known.has(row.id)) continue;
      // Inputs one failed turn had taken in together run again together (one note, one answer).
      const last = this.queue.at(-1);
      if (row.attempts > 0 && row.turnId && last?.held && last.rows[0]!.turnId === row.turnId) last.rows.push(row);
      else this.queue.push({ rows: [row], held: true });
      this.ctx.store.markQueued(row.id);
    }
    this.queue.sort((a, b) => (a.rows[0]?.seq ?? 0) - (b.rows[0]?.seq ?? 0));
    if (deferred.length) this.log.info({ messages: deferred.length, why }, 'running deferred messages on Claude again');
    this.pump();
    return deferred.length;
  }

  dispose(): void {
    clearTimeout(this.collectTimer);
    clearTimeout(this.pauseTimer);
  }
}
