/**
 * A lane: one per conversation, strictly ordered (a later message never overtakes an earlier one).
 * An idle lane starts a turn. A busy lane, by queue mode:
 *   steer     hand the message to the running turn when the backend can take it now, else followup;
 *   followup  one later turn per message;
 *   collect   messages within a quiet window are merged into one later turn;
 *   interrupt stop the running turn, then run the queue.
 * Steering is only tried with an empty queue: steering past a queued message would overtake it.
 * The lane owns its state (internals.ts); everything else asks through these methods.
 */
import type { AgentSession, Turn } from '../../agents/session.js';
import { isRudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { MessageRow } from '../../store/types.js';
import { composeAgentText, sourceOf } from './agent-text.js';
import { CANNOT_START, MAX_ATTEMPTS } from './decide.js';
import type { LaneDeps, LaneSettings } from './deps.js';
import { Hold, type HoldReason, holdOf } from './hold.js';
import type { LaneInternals } from './internals.js';
import { TurnOutcomes } from './outcome.js';
import { LaneQueue, type QueueItem } from './queue.js';
import { rerunInput } from './rerun.js';
import { steerBlocker, steerInto } from './steer.js';
import { RESTART_FAILED_TEXT, RESTART_RERUN_TEXT } from './texts.js';

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

export class Lane {
  readonly conversationId: string;
  private readonly st: LaneInternals;
  private readonly log: Logger;
  private readonly outcomes: TurnOutcomes;
  private collectTimer: NodeJS.Timeout | undefined;
  private starting = false;
  private toldCannotSteer = false;
  private readonly watched = new WeakSet<AgentSession>();

  constructor(
    conversationId: string,
    private readonly deps: LaneDeps,
  ) {
    this.conversationId = conversationId;
    this.log = deps.log.child({ conversationId });
    this.st = {
      conversationId,
      deps,
      log: this.log,
      queue: new LaneQueue(),
      inFlight: new Map(),
      merged: new Set(),
      ranAsTurn: new Set(),
      turnSender: new Map(),
      hold: new Hold((why) => this.resume(why)),
      stopping: false,
      pendingRelease: undefined,
      session: () => this.session(),
      pump: () => this.pump(),
      forget: (id) => this.forget(id),
      withoutStopped: (rows) => this.withoutStopped(rows),
      sentBeforeCutoff: (row) => this.sentBeforeCutoff(row),
    };
    this.outcomes = new TurnOutcomes(this.st);
  }

  session(): AgentSession | undefined {
    return this.deps.pool.peek(this.conversationId);
  }

  busy(): boolean {
    return this.starting || this.session()?.state() === 'busy';
  }

  queueDepth(): number {
    return this.st.queue.depth();
  }

  snapshot(now = Date.now()): LaneSnapshot {
    const h = this.st.hold;
    return {
      depth: this.st.queue.depth(),
      inFlight: this.st.inFlight.size,
      held: h.active(now) ? { until: h.until, why: h.why, estimated: h.estimated } : undefined,
    };
  }

  /** Routes a committed message; returns what happened to it. */
  accept(row: MessageRow): Disposition {
    const st = this.deps.settings(this.conversationId);
    if (this.st.hold.active()) {
      this.outcomes.heldOnArrival(row);
      return 'queued';
    }
    // Sent after a /stop that is still running: it waits for the stop instead of joining the turn it ends.
    if (this.st.stopping) return this.enqueue(row, 'a stop is running', st);
    if (st.mode === 'collect') return this.collect(row, st);
    const session = this.session();
    const busy = this.busy();
    if (!busy && this.st.queue.length === 0) {
      this.start([row]);
      return 'turn';
    }
    let reason = busy ? 'a turn is running' : 'earlier messages are waiting';
    if (busy && this.st.queue.length === 0 && st.mode === 'steer') {
      const blocker = steerBlocker(this.st, session, row, st) ?? steerInto(this.st, session!, row);
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

  /** A message that must wait for something (voice transcription) but keeps its place in line. */
  waitInPlace(row: MessageRow): PendingPlace {
    const item = this.st.queue.pushPending(row);
    this.deps.store.inbox.queue([row.id]);
    return {
      ready: (updated) => {
        this.st.queue.ready(item, updated);
        this.pump();
      },
      drop: () => {
        this.st.queue.remove(item);
        this.pump();
      },
    };
  }

  /** An edit of a message still waiting: the new text replaces the queued one. */
  replaceQueued(messageId: string, text: string): boolean {
    return this.st.queue.replace(messageId, text);
  }

  /**
   * Takes a waiting message out of line, so it never reaches the agent. Synchronous, so pump()
   * cannot start it in between. 'pending': it waits for a transcription and cannot be taken back.
   */
  withdrawQueued(messageId: string): 'removed' | 'pending' | 'absent' {
    return this.st.queue.withdraw(messageId);
  }

  private enqueue(row: MessageRow, reason: string, st: LaneSettings): Disposition {
    const { store, replies } = this.deps;
    if (this.st.queue.depth() >= st.queueCap) {
      const item = this.st.queue.pushOverflow(row);
      store.inbox.queue([row.id]);
      this.log.info(
        { messageId: row.id, queueCap: st.queueCap },
        'queue full: message merged into the overflow summary',
      );
      replies.ack(
        row,
        'queued',
        `the queue is full (${st.queueCap}); this will be merged with ${item.rows.length - 1} other message(s) ` +
          'into one turn',
      );
      return 'merged';
    }
    this.st.queue.push(row);
    store.inbox.queue([row.id]);
    this.log.info({ messageId: row.id, reason }, 'message queued');
    replies.ack(row, 'queued', `queued (${this.st.queue.depth()} waiting): ${reason}`);
    return 'queued';
  }

  private collect(row: MessageRow, st: LaneSettings): Disposition {
    const { item, merged } = this.st.queue.collect(row);
    this.deps.store.inbox.queue([row.id]);
    this.deps.replies.ack(
      row,
      'queued',
      merged ? 'merged with the messages just before it' : `collecting messages for ${st.collectWindowMs} ms`,
    );
    clearTimeout(this.collectTimer);
    this.collectTimer = setTimeout(() => {
      this.st.queue.closeCollect(item);
      this.pump();
    }, st.collectWindowMs);
    return merged ? 'merged' : 'queued';
  }

  /** Starts the next runnable item when the agent is free. */
  pump(): void {
    if (this.starting || this.st.stopping || this.st.hold.active() || this.deps.shuttingDown()) return;
    const session = this.session();
    if (session?.state() === 'busy') return;
    this.outcomes.reconcile();
    const item = this.st.queue.takeRunnable();
    if (item) this.start(item.rows, item.overflow);
  }

  private start(rows: MessageRow[], overflow = false): void {
    if (rows.length === 0) return this.pump();
    const { store, pool, replies } = this.deps;
    const conv = store.conversation(this.conversationId);
    this.starting = true;
    let failed = false;
    try {
      const session = pool.sessionFor(this.conversationId, conv?.sessionId ?? undefined);
      this.watch(session);
      this.tellOnceIfCannotSteer(session, rows);
      const sessionId = session.sessionId() ?? conv?.sessionId ?? undefined;
      const inputs = rows.map((r) => ({
        id: r.id,
        text: composeAgentText(r),
        source: sourceOf(r),
        ...rerunInput(store, r, sessionId),
      }));
      if (overflow)
        inputs[0]!.text = `[${rows.length} messages arrived while the queue was full; they are merged here]\n\n${inputs[0]!.text}`;
      for (const r of rows) this.st.inFlight.set(r.id, r);
      for (const r of rows.slice(1)) this.st.merged.add(r.id);
      const turn = session.startTurn({ inputs });
      this.st.turnSender.set(turn.id, rows[0]!.senderId);
      store.tx(() => {
        store.inbox.run(
          rows.map((r) => r.id),
          turn.id,
        );
        store.turnStarted(
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
        store.inbox.fail(
          rows.map((r) => r.id),
          `${err.code}: ${err.message}`,
        );
        replies.send(this.conversationId, 'notice', `⚠️ ${err.message}`, rows);
        this.log.warn(
          { code: err.code, err: err.message, messages: rows.length },
          'no agent could be started for this turn',
        );
        failed = true;
      } else {
        // AGENT_BUSY: the agent started a turn of its own (a queued steer); run these right after it.
        this.st.queue.unshift(rows);
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
    this.deps.replies.send(
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
    const { store } = this.deps;
    clearTimeout(this.collectTimer);
    this.st.hold.clear();
    store.setCutoff(this.conversationId, cutoffAt);
    const held = store.inbox.held(this.conversationId);
    const queued = this.st.queue.drain();
    const dropped = [...held.filter((h) => !queued.some((q) => q.id === h.id)), ...queued];
    store.inbox.stop(
      dropped.map((r) => r.id),
      reason,
    );
    const session = this.session();
    const interrupted = !!session?.currentTurn();
    this.st.stopping = true;
    try {
      await session?.interrupt({ cancelQueued: true });
      // Give the interrupted turn's outcome handler its turn before sweeping what is left.
      await new Promise((r) => setImmediate(r));
      const leftovers = [...this.st.inFlight.values()].filter(
        (r) => !this.session()?.currentTurn()?.inputIds().includes(r.id),
      );
      store.inbox.stop(
        leftovers.map((r) => r.id),
        reason,
      );
      for (const r of leftovers) this.forget(r.id);
      return { interrupted, dropped: [...dropped, ...leftovers] };
    } finally {
      this.st.stopping = false;
    }
  }

  /** A release (/model) that must wait for the running turn: it happens when the turn ends. */
  async releaseWhenIdle(reason: string): Promise<void> {
    if (this.busy()) this.st.pendingRelease = reason;
    else await this.deps.pool.release(this.conversationId, reason);
  }

  /**
   * Rows /stop or /clear already ended (sent before the conversation's cutoff) are marked stopped,
   * with the ⏹ ack; the rest are returned. Every path that would run or hold a message again asks.
   */
  withoutStopped(rows: MessageRow[]): MessageRow[] {
    const ended = rows.filter((r) => this.sentBeforeCutoff(r));
    if (ended.length === 0) return rows;
    this.deps.store.inbox.stop(
      ended.map((r) => r.id),
      'stopped on request',
    );
    for (const r of ended) {
      this.forget(r.id);
      this.deps.replies.ack(r, 'stopped', 'stopped on request');
    }
    this.log.info({ messages: ended.map((r) => r.id) }, 'sent before /stop or /clear: stopped, not run again');
    return rows.filter((r) => !ended.includes(r));
  }

  /** Sent before the last /stop or /clear: that command ended it. */
  private sentBeforeCutoff(row: MessageRow): boolean {
    const cutoff = this.deps.store.conversation(this.conversationId)?.cutoffAt ?? 0;
    return (row.sentAt ?? row.receivedAt) < cutoff;
  }

  private forget(id: string): void {
    this.st.inFlight.delete(id);
    this.st.merged.delete(id);
    this.st.ranAsTurn.delete(id);
  }

  /** Puts held messages back in line (in arrival order) and runs them; how many were held. */
  resume(why: string): number {
    this.st.hold.clear();
    const held = this.withoutStopped(this.deps.store.inbox.held(this.conversationId));
    const added = this.st.queue.addReleased(held);
    this.deps.store.inbox.queue(added.map((r) => r.id));
    if (held.length) this.log.info({ messages: held.length, why }, 'running deferred messages on Claude again');
    this.pump();
    return held.length;
  }

  /**
   * A message found open after a restart (not `accepted`: intake routes those): what was waiting
   * waits again, what was held is held until its time, what a turn had taken in runs again once.
   */
  recover(row: MessageRow): 'queued' | 'deferred' | 'rerun' | 'failed' {
    const { store, replies } = this.deps;
    if (row.state === 'deferred') {
      const h = holdOf(row.heldFor);
      this.st.hold.start(row.retryAt ?? Date.now(), h.why, h.estimated);
      return 'deferred';
    }
    if (row.state === 'queued') {
      this.st.queue.push(row);
      return 'queued';
    }
    if (row.attempts < MAX_ATTEMPTS) {
      // running or steering when Rudder stopped: the turn was cut off.
      this.st.queue.push(row);
      store.inbox.queue([row.id]);
      replies.send(this.conversationId, 'notice', RESTART_RERUN_TEXT, [row]);
      return 'rerun';
    }
    store.inbox.fail([row.id], 'cut off by a restart, twice');
    replies.send(this.conversationId, 'notice', RESTART_FAILED_TEXT, [row]);
    return 'failed';
  }

  dispose(): void {
    clearTimeout(this.collectTimer);
    this.st.hold.clear();
  }
}

export type { QueueItem };
