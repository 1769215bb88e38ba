/**
 * The inbox: every inbound message and its state. States change only through the named
 * transitions of message-states.ts, each an UPDATE that applies only from the states its table
 * lists (a terminal message never changes again). All calls are synchronous.
 */
import type Database from 'better-sqlite3';
import { TRANSITIONS, type Transition } from './message-states.js';
import { json, toMessage } from './rows.js';
import type { Statement, Statements } from './statements.js';
import type { HeldFor, MessageExtra, MessageRow, MessageState } from './types.js';
import { OPEN_STATES } from './types.js';

export interface NewMessage {
  conversationId: string;
  channel: string;
  platformMessageId: string;
  senderId: string;
  text: string;
  extra?: MessageExtra;
  sentAt?: number;
  state: MessageState;
  reason?: string;
}

type Ids = readonly string[];

export class Inbox {
  constructor(
    private readonly s: Statements,
    private readonly moves: Record<Transition, Statement>,
    private readonly newId: (prefix: string) => string,
  ) {}

  /** Commits an inbound message; a redelivery (same channel and platform id) returns the existing row. */
  insert(m: NewMessage): { row: MessageRow; duplicate: boolean } {
    const info = this.s.msgInsert.run({
      id: this.newId('m'),
      conversationId: m.conversationId,
      channel: m.channel,
      platformMessageId: m.platformMessageId,
      senderId: m.senderId,
      text: m.text,
      extra: m.extra ? json(m.extra) : null,
      sentAt: m.sentAt ?? null,
      receivedAt: Date.now(),
      state: m.state,
      reason: m.reason ?? null,
    });
    const row = toMessage(this.s.msgByPlatform.get(m.channel, m.platformMessageId)!);
    return { row, duplicate: info.changes === 0 };
  }

  get(id: string): MessageRow | undefined {
    const r = this.s.msgGet.get(id);
    return r ? toMessage(r) : undefined;
  }

  byPlatformId(channel: string, platformMessageId: string): MessageRow | undefined {
    const r = this.s.msgByPlatform.get(channel, platformMessageId);
    return r ? toMessage(r) : undefined;
  }

  // ---- transitions (message-states.ts) ----

  /** Waits in its lane (and is marked as having waited). */
  queue(ids: Ids): void {
    this.move('queue', ids, (id, now) => [now, id]);
  }

  /** Handed to a turn that starts with it; counts as an attempt. */
  run(ids: Ids, turnId: string): void {
    this.move('run', ids, (id, now) => [turnId, now, id]);
  }

  /** Handed to the running turn; counts as an attempt. */
  steer(id: string, turnId: string): void {
    this.move('steer', [id], (i, now) => [turnId, now, i]);
  }

  /** The agent ran a steer as its next turn: it runs there, with that turn. */
  ranAsTurn(id: string, turnId: string, reason: string): void {
    this.move('ranAsTurn', [id], (i, now) => [reason, turnId, now, i]);
  }

  answer(ids: Ids, reason: string | null = null): void {
    this.move('answer', ids, (id, now) => [reason, now, id]);
  }

  steered(ids: Ids, reason: string | null = null): void {
    this.move('steered', ids, (id, now) => [reason, now, id]);
  }

  merge(ids: Ids, reason: string | null = null): void {
    this.move('merge', ids, (id, now) => [reason, now, id]);
  }

  /** Held until retryAt: why in heldFor, the person's words in reason. */
  hold(ids: Ids, retryAt: number, heldFor: HeldFor, reason: string): void {
    this.move('hold', ids, (id, now) => [retryAt, heldFor, reason, now, id]);
  }

  stop(ids: Ids, reason: string): void {
    this.move('stop', ids, (id, now) => [reason, now, id]);
  }

  fail(ids: Ids, reason: string): void {
    this.move('fail', ids, (id, now) => [reason, now, id]);
  }

  withdraw(id: string, reason: string): void {
    this.move('withdraw', [id], (i, now) => [reason, now, i]);
  }

  refuse(id: string, reason: string): void {
    this.move('refuse', [id], (i, now) => [reason, now, i]);
  }

  command(id: string): void {
    this.move('command', [id], (i, now) => [null, now, i]);
  }

  private move(t: Transition, ids: Ids, args: (id: string, now: number) => unknown[]): void {
    const st = this.moves[t];
    const now = Date.now();
    for (const id of ids) st.run(...args(id, now));
  }

  // ---- not state changes ----

  /** A steer the agent never took in was no attempt: it does not count towards the re-run limit. */
  untaken(id: string): void {
    this.s.msgUntaken.run(Date.now(), id);
  }

  /**
   * Records which turn answered each input (a steer written between turns learns it only then); null when a start
   * is given back before any turn of theirs ran.
   */
  setTurn(ids: Ids, turnId: string | null): void {
    const now = Date.now();
    for (const id of ids) this.s.msgTurn.run(turnId, now, id);
  }

  updateText(id: string, text: string): void {
    this.s.msgText.run(text, Date.now(), id);
  }

  setExtra(id: string, extra: MessageExtra): void {
    this.s.msgExtra.run(json(extra), Date.now(), id);
  }

  // ---- queries ----

  open(): MessageRow[] {
    return this.s.msgOpen.all(...OPEN_STATES).map(toMessage);
  }

  /** Messages of a conversation held by a rate limit or a hold, oldest first. */
  held(conversationId: string): MessageRow[] {
    return this.s.msgDeferred.all(conversationId).map(toMessage);
  }

  recent(conversationId: string, limit = 100): MessageRow[] {
    return this.s.msgByConv.all(conversationId, limit).map(toMessage).reverse();
  }

  countsByState(): Record<string, number> {
    return Object.fromEntries(this.s.msgCountByState.all().map((r) => [r.state, r.n]));
  }
}

/** The UPDATE of each transition, applied only from the states its table lists. */
export function transitionStatements(db: Database.Database): Record<Transition, Statement> {
  const out = {} as Record<Transition, Statement>;
  for (const [name, t] of Object.entries(TRANSITIONS)) {
    const from = `state IN (${t.from.map((s) => `'${s}'`).join(', ')})`;
    const set: Record<string, string> = {
      queue: "state = 'queued', was_queued = 1",
      run: "state = 'running', turn_id = ?, attempts = attempts + 1",
      steer: "state = 'steering', turn_id = ?, attempts = attempts + 1",
      ranAsTurn: "state = 'running', reason = ?, turn_id = ?",
      hold: "state = 'deferred', retry_at = ?, held_for = ?, reason = ?",
    };
    const assign = set[name] ?? `state = '${t.to}', reason = ?`;
    out[name as Transition] = db.prepare(`UPDATE messages SET ${assign}, updated_at = ? WHERE id = ? AND ${from}`);
  }
  return out;
}
