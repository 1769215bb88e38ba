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
import type { Logger } from '../../ops/logger.js';
import type { MessageRow } from '../../store/types.js';
import type { LaneDeps, LaneSettings } from './deps.js';
import { collect, enqueue } from './enqueue.js';
import { heldForBudget, heldOnArrival, reachableAgain } from './held.js';
import { Hold, type HoldReason } from './hold.js';
import type { LaneInternals } from './internals.js';
import { TurnOutcomes } from './outcome.js';
import { LaneQueue, type QueueItem } from './queue.js';
import { type Recovered, recoverRow } from './recover.js';
import { startTurn } from './start.js';
import { steerBlocker, steerInto, type Ticket } from './steer.js';
import { stopLane, withoutStopped } from './stop.js';

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
      ranAsTurn: new Map(),
      turnSender: new Map(),
      hold: new Hold((why, reason) => this.releaseHeld(why, reason)),
      stopping: false,
      pendingStart: undefined,
      pendingRelease: undefined,
      unreachable: undefined,
      session: () => this.session(),
      watch: (session) => this.watch(session),
      pump: () => this.pump(),
      forget: (id) => this.forget(id),
      withoutStopped: (rows) => withoutStopped(this.st, rows),
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

  /**
   * Routes a committed message; returns what happened to it. A steer is handed to the agent once the
   * message is committed, and the ticket says `queued` instead if the agent could not take it then.
   */
  accept(row: MessageRow): Ticket {
    const st = this.deps.settings(this.conversationId);
    if (this.st.hold.active()) {
      heldOnArrival(this.st, row);
      return { disposition: 'queued' };
    }
    // Sent after a /stop that is still running: it waits for the stop instead of joining the turn it ends.
    if (this.st.stopping) return { disposition: enqueue(this.st, row, 'a stop is running', st) };
    if (st.mode === 'collect') return { disposition: this.collect(row, st) };
    const session = this.session();
    const busy = this.busy();
    // Checked in the same synchronous step as the start: a review action claims its tree only while no turn runs.
    const reviewing = busy ? undefined : this.deps.reviewing(this.conversationId);
    if (!busy && !reviewing && this.st.queue.length === 0) {
      if (heldForBudget(this.st, [row])) return { disposition: 'queued' };
      this.start([row]);
      return { disposition: 'turn' };
    }
    let reason = busy
      ? 'a turn is running'
      : reviewing
        ? `waiting for the ${reviewing} of this worktree to end`
        : 'earlier messages are waiting';
    if (busy && this.st.queue.length === 0 && st.mode === 'steer') {
      const blocker = steerBlocker(this.st, session, row, st);
      if (!blocker) return steerInto(this.st, session!, row, st);
      reason = `not steered: ${blocker}`;
    } else if (busy && st.mode === 'interrupt') {
      reason = 'interrupt mode: stopping the running turn first';
      void session?.interrupt();
    } else if (busy && st.mode === 'followup') {
      reason = 'followup mode';
    }
    return { disposition: enqueue(this.st, row, reason, st) };
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

  private collect(row: MessageRow, st: LaneSettings): Disposition {
    const { waiting, item } = collect(this.st, row, st);
    clearTimeout(this.collectTimer);
    this.collectTimer = setTimeout(() => {
      this.st.queue.closeCollect(item);
      this.pump();
    }, st.collectWindowMs);
    return waiting;
  }

  /** Starts the next runnable item when the agent is free. */
  pump(): void {
    if (this.starting || this.st.stopping || this.st.hold.active() || this.deps.shuttingDown()) return;
    const session = this.session();
    if (session?.state() === 'busy') return;
    // A review action (commit, merge, ...) runs on this tree: its end pumps again.
    if (this.deps.reviewing(this.conversationId)) return;
    this.outcomes.reconcile();
    const item = this.st.queue.takeRunnable();
    if (!item || heldForBudget(this.st, item.rows)) return;
    this.start(item.rows, item.overflow);
  }

  /** The turn is written now and handed to the agent once that is committed (start.ts); busy until then. */
  private start(rows: MessageRow[], overflow = false): void {
    if (rows.length === 0) return this.pump();
    this.starting = true;
    const ready = (session: AgentSession) => {
      this.watch(session);
      this.tellOnceIfCannotSteer(session, rows);
    };
    startTurn(this.st, rows, overflow, ready, (outcome) => {
      this.starting = false;
      if (outcome === 'failed') this.pump();
    });
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
    session.onReachable?.(() => {
      if (reachableAgain(this.st).length || this.st.hold.why === 'agent-unreachable')
        this.resume('the agent is reachable again');
    });
  }

  /** /stop and /clear (stop.ts): ends what runs and waits; the caller pumps once it is done. */
  stop(reason: string, cutoffAt: number): Promise<{ interrupted: boolean; dropped: MessageRow[] }> {
    clearTimeout(this.collectTimer);
    return stopLane(this.st, reason, cutoffAt);
  }

  /** A release (/model) that must wait for the running turn: it happens when the turn ends. */
  async releaseWhenIdle(reason: string): Promise<void> {
    if (this.busy()) this.st.pendingRelease = reason;
    else await this.deps.pool.release(this.conversationId, reason);
  }

  /** Rows a /stop or /clear already ended are marked stopped (stop.ts); the rest are returned. */
  withoutStopped(rows: MessageRow[]): MessageRow[] {
    return withoutStopped(this.st, rows);
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
    return this.releaseHeld(why, undefined);
  }

  private releaseHeld(why: string, reason: HoldReason | undefined): number {
    this.st.hold.clear();
    const held = this.withoutStopped(this.deps.store.inbox.held(this.conversationId));
    const added = this.st.queue.addReleased(held).map((r) => r.id);
    this.deps.store.inbox.queue(added);
    if (held.length) this.log.info({ messages: held.length, why }, 'running deferred messages on the agent again');
    // A rate limit's end is news for a person who is not looking; told before the turn can start.
    if (reason === 'rate-limit' && added.length) this.deps.alerts.rateLimitReset(this.conversationId, added);
    this.pump();
    return held.length;
  }

  /** A message found open after a restart (recover.ts). */
  recover(row: MessageRow): Recovered {
    return recoverRow(this.st, row);
  }

  dispose(): void {
    clearTimeout(this.collectTimer);
    this.st.hold.clear();
  }
}

export type { QueueItem, Ticket };
