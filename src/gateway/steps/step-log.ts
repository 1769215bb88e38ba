/**
 * The gateway's record of every turn's steps. Lanes feed it each turn's events; it keeps running
 * turns in memory (for live surfaces such as a chat's progress card), writes each step to the store
 * and publishes `step` and `turn` events on the bus (persisted, so the web page can replay them
 * after a Last-Event-ID).
 *
 * Ordering: writes are batched and committed at the next macrotask, or earlier by flush(), which a
 * turn's outcome calls inside its own transaction so a turn's steps are stored before its reply.
 */
import type { TurnEvent } from '../../agents/session.js';
import { ERRORS } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { Store } from '../../store/store.js';
import type { EventRow, TurnRow } from '../../store/types.js';
import type { EventBus } from '../bus.js';
import type { PermissionDesk } from '../permissions/desk.js';
import { readSteps } from '../stored-events.js';
import { type TurnEnd, TurnRecord } from './turn-record.js';
import type { NoticeCode, Step, TurnStatus, TurnSummary, TurnView } from './types.js';

type Write =
  | { kind: 'step'; step: Step; messageId: string | null }
  | { kind: 'turn'; turn: TurnSummary; messageId: string | null };

export class StepLog {
  private readonly live = new Map<string, TurnRecord>();
  /**
   * The conversation's running turns, newest last (a backend runs one at a time; a put-back message may start the
   * next).
   */
  private readonly byConversation = new Map<string, string[]>();
  private readonly byRequest = new Map<string, string>();
  private pending: Write[] = [];
  private flushTimer: NodeJS.Immediate | undefined;
  private readonly listeners = new Set<(turn: TurnView, changed: Step[]) => void>();

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly log: Logger,
    desk: PermissionDesk,
  ) {
    // A permission request's step follows the desk, the request's one owner.
    desk.subscribe((e) => {
      if (e.kind === 'opened') this.record(e.open.turnId, { type: 'permission', request: e.open.request });
      else if (e.kind === 'answered')
        this.permissionAnswered(e.open.request.requestId, { optionId: e.optionId, label: e.label, by: e.by });
    });
  }

  /** A turn began (the lane's or one the agent started itself), at the time stored with it. Idempotent. */
  turnStarted(conversationId: string, turnId: string, inputIds: string[], at = Date.now()): void {
    if (this.live.has(turnId)) return;
    const rec = new TurnRecord(conversationId, turnId, inputIds, at);
    this.live.set(turnId, rec);
    const list = this.byConversation.get(conversationId) ?? [];
    list.push(turnId);
    this.byConversation.set(conversationId, list);
    this.queue({ kind: 'turn', turn: { ...rec.summary }, messageId: inputIds[0] ?? null });
    this.changed(rec, []);
  }

  /** One event of a running turn. */
  record(turnId: string, e: TurnEvent): void {
    const rec = this.live.get(turnId);
    if (!rec) return;
    const steps = rec.apply(e, (id) => this.store.message(id)?.text);
    if (e.type === 'permission') this.byRequest.set(e.request.requestId, turnId);
    this.publishSteps(rec, steps);
  }

  /** Someone answered a permission request (and the answer reached the agent). */
  private permissionAnswered(requestId: string, answer: { optionId: string; label: string; by: string }): void {
    const rec = this.recordOf(requestId);
    if (rec) this.publishSteps(rec, rec.answered(requestId, answer));
  }

  /** The person asked to stop the turn (before its interrupt is sent): the tools it cuts off say so. */
  stopAsked(turnId: string): void {
    this.live.get(turnId)?.stopping();
  }

  /** A notice about a turn: a re-run, a rate limit, a stop. */
  notice(turnId: string, code: NoticeCode, text: string): void {
    const rec = this.live.get(turnId);
    if (rec) this.publishSteps(rec, rec.notice(code, text));
  }

  /** The turn ended (at the time stored with it); open requests are withdrawn. Returns the requests withdrawn. */
  turnEnded(turnId: string, end: TurnEnd, at = Date.now()): string[] {
    const rec = this.live.get(turnId);
    if (!rec) return [];
    const withdrawn = [...rec.permissions.values()].filter((p) => p.status === 'open').map((p) => p.requestId);
    this.publishSteps(rec, rec.end(end, at));
    this.queue({ kind: 'turn', turn: { ...rec.summary }, messageId: rec.summary.inputIds[0] ?? null });
    this.live.delete(turnId);
    for (const id of rec.permissions.keys()) this.byRequest.delete(id);
    const list = (this.byConversation.get(rec.summary.conversationId) ?? []).filter((t) => t !== turnId);
    if (list.length) this.byConversation.set(rec.summary.conversationId, list);
    else this.byConversation.delete(rec.summary.conversationId);
    this.flush();
    return withdrawn;
  }

  /** A running turn as it is now. */
  view(turnId: string): TurnView | undefined {
    return this.live.get(turnId)?.view();
  }

  /** The conversation's running turn, if any (the newest one). */
  running(conversationId: string): TurnView | undefined {
    const id = this.byConversation.get(conversationId)?.at(-1);
    return id ? this.view(id) : undefined;
  }

  /** Called after every change of a running turn (and once at its start and end): live surfaces. */
  onChange(listener: (turn: TurnView, changed: Step[]) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Past and running turns of a conversation, oldest first; `before` (a turn's startedAt) pages back. */
  history(
    conversationId: string,
    opts: { before?: number; limit?: number } = {},
  ): { turns: TurnView[]; more: boolean } {
    this.flush();
    const limit = Math.max(1, Math.min(opts.limit ?? 50, 200));
    const rows = this.store.turnsOf(conversationId, opts.before, limit + 1);
    const more = rows.length > limit;
    const page = rows.slice(0, limit).reverse();
    const steps = readSteps(this.store.stepsOf(page.map((r) => r.id)), this.log);
    return { turns: page.map((r) => this.live.get(r.id)?.view() ?? viewOf(r, steps.get(r.id) ?? [])), more };
  }

  /**
   * Turns started in [from, to), oldest first, with their steps (running ones as they are now): a page of the web app's
   * history.
   */
  between(conversationId: string, from: number, to: number): TurnView[] {
    this.flush();
    const rows = this.store.history.turns(conversationId, from, to);
    const steps = readSteps(this.store.stepsOf(rows.map((r) => r.id)), this.log);
    return rows.map((r) => this.live.get(r.id)?.view() ?? viewOf(r, steps.get(r.id) ?? []));
  }

  /** Commits what is pending, in one transaction, then publishes it. */
  flush(): void {
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    if (!this.pending.length) return;
    const batch = this.pending;
    this.pending = [];
    let events: EventRow[];
    try {
      events = this.store.tx(() =>
        batch.map((w) => {
          if (w.kind === 'step') {
            this.store.putStep(w.step);
            return this.store.appendEvent(w.step.conversationId, 'step', w.messageId, { step: w.step });
          }
          return this.store.appendEvent(w.turn.conversationId, 'turn', w.messageId, { turn: w.turn });
        }),
      );
    } catch (err) {
      // Steps are what a person watches, never what they are owed: a failed write is logged and dropped.
      this.log.warn({ err: (err as Error).message, steps: batch.length }, 'turn steps not recorded');
      return;
    }
    for (const e of events) this.bus.publish(e);
  }

  private publishSteps(rec: TurnRecord, steps: Step[]): void {
    const messageId = rec.summary.inputIds[0] ?? null;
    // Each step is written as it is now; a snapshot keeps a later change from rewriting a queued write.
    for (const step of steps)
      this.queue({
        kind: 'step',
        step: structuredClone(step),
        messageId: step.kind === 'steer' ? step.messageId : messageId,
      });
    this.changed(rec, steps);
  }

  private changed(rec: TurnRecord, steps: Step[]): void {
    if (!this.listeners.size) return;
    const view = rec.view();
    for (const l of this.listeners) {
      try {
        l(view, steps);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'a turn-progress listener failed');
      }
    }
  }

  private queue(w: Write): void {
    this.pending.push(w);
    this.flushTimer ??= setImmediate(() => this.flush());
  }

  private recordOf(requestId: string): TurnRecord | undefined {
    const turnId = this.byRequest.get(requestId);
    return turnId ? this.live.get(turnId) : undefined;
  }
}

const STATUS_OF: Record<string, TurnStatus> = { answered: 'answered', interrupted: 'stopped', failed: 'failed' };

/** A stored turn that is not running here: ended, or cut off when a previous run of Rudder stopped. */
function viewOf(r: TurnRow, steps: Step[]): TurnView {
  const ended = r.outcome ? (STATUS_OF[r.outcome] ?? 'failed') : undefined;
  return {
    id: r.id,
    conversationId: r.conversationId,
    status: ended ?? 'failed',
    startedAt: r.startedAt,
    ...(r.endedAt ? { endedAt: r.endedAt } : {}),
    inputIds: r.inputIds,
    ...(r.error
      ? { error: { code: r.error, message: (ERRORS as Record<string, string>)[r.error] ?? r.error } }
      : ended
        ? {}
        : { error: { code: 'TURN_CUT_OFF', message: ERRORS.TURN_CUT_OFF } }),
    stepCount: steps.length,
    ...(r.cost ? { usage: r.cost } : {}),
    steps,
  };
}
