/**
 * The durable store: conversations, the inbox (messages and their states), the outbox of replies
 * owed, the event log the web page replays, turns, and the agent processes Rudder started.
 * All calls are synchronous (better-sqlite3); callers group writes that belong together in tx().
 */
import { randomBytes } from 'node:crypto';
import { Attachments } from './attachments.js';
import { Checkpointer } from './checkpointer.js';
import { ConversationProjects } from './conversation-projects.js';
import { type Db, integrityCheck, openDatabase } from './db.js';
import { GroupCommit } from './group-commit.js';
import { HistoryQueries } from './history.js';
import { HookDeliveries } from './hook-deliveries.js';
import { Inbox, type NewMessage, transitionStatements } from './inbox.js';
import { KeptSchedules } from './kept-schedules.js';
import { PrOwners } from './pr-owners.js';
import { PushSubscriptions } from './push-subscriptions.js';
import { json, toConversation, toEvent, toOutbox, toTurn } from './rows.js';
import { ScheduleFirings } from './schedule-firings.js';
import { SpendQueries } from './spend.js';
import { type ConversationSetter, prepareStatements, type Statements } from './statements.js';
import type {
  ConversationRow,
  EventRow,
  EventType,
  MessageRow,
  OutboxKind,
  OutboxRow,
  ToolCall,
  TurnCost,
  TurnRow,
} from './types.js';

/** Unique across restarts (time and a per-process random tag) without a random draw per id. */
const PROCESS_TAG = randomBytes(4).toString('hex');
let idCounter = 0;
export const newId = (prefix: string) =>
  `${prefix}_${Date.now().toString(36)}${PROCESS_TAG}${(idCounter++).toString(36)}`;

/** Tool calls recorded per turn, at most: enough to tell the agent what a cut-off turn had started. */
const MAX_TURN_TOOLS = 20;

export type { NewMessage };

export interface NewOutbox {
  conversationId: string;
  kind: OutboxKind;
  messageIds: string[];
  replyTo?: string | null;
  text: string;
  fromFallback?: boolean;
}

/** What the store needs of a turn step (the step model lives in gateway/steps; it is stored as JSON). */
export interface StoredStep {
  turnId: string;
  index: number;
  conversationId: string;
  kind: string;
  at: number;
}

export interface StoreOptions {
  /** Checkpoint the WAL from a worker thread instead of inside commits (the gateway's store). */
  backgroundCheckpoints?: boolean;
  onError?: (message: string) => void;
  /** store.synchronous: see openDatabase. */
  synchronous?: 'normal' | 'full';
  /** store.groupCommit: the writes of one event-loop turn share one commit (see group-commit.ts). */
  groupCommit?: boolean;
}

export class Store {
  readonly db: Db;
  /** Per conversation and project: its saved session and its worktree. */
  readonly projects: ConversationProjects;
  private readonly s: Statements;
  /** Every inbound message and its state, changed through named transitions only. */
  readonly inbox: Inbox;
  /** Conversation rows are read on every message; the setters below keep this in step with the table. */
  private readonly convCache = new Map<string, ConversationRow>();
  private readonly checkpointer: Checkpointer | undefined;
  /** Paged reads of a conversation's history (the web app). */
  readonly history: HistoryQueries;
  /** Web Push subscriptions and muted conversations. */
  readonly push: PushSubscriptions;
  /** What turns cost, summed per day, project and conversation; the budgets raised for a day. */
  readonly spend: SpendQueries;
  /** Jobs: each schedule's slots, the schedules made from a chat or the page and the pauses, webhook deliveries
   * seen, and which conversation owns a pull request. */
  readonly firings: ScheduleFirings;
  readonly keptSchedules: KeptSchedules;
  readonly hookDeliveries: HookDeliveries;
  readonly prOwners: PrOwners;
  /** Conversations whose agent runs in a terminal: a person's pane, or one it was handed to. */
  readonly attachments: Attachments;
  private readonly group: GroupCommit | undefined;
  /** Without group commit: what waits for the transaction running now to commit. */
  private afterTx: Array<() => void> = [];

  constructor(file: string, opts: StoreOptions = {}) {
    this.db = openDatabase(file, { synchronous: opts.synchronous });
    if (opts.backgroundCheckpoints && file !== ':memory:') {
      this.db.pragma('wal_autocheckpoint = 0');
      this.checkpointer = new Checkpointer(file, 500, opts.onError);
    }
    this.s = prepareStatements(this.db);
    const moves = transitionStatements(this.db);
    this.inbox = new Inbox(this.s, moves, newId);
    this.projects = new ConversationProjects(this.db);
    this.history = new HistoryQueries(this.db);
    this.push = new PushSubscriptions(this.db);
    this.spend = new SpendQueries(this.db);
    this.firings = new ScheduleFirings(this.db);
    this.keptSchedules = new KeptSchedules(this.db);
    this.hookDeliveries = new HookDeliveries(this.db);
    this.prOwners = new PrOwners(this.db);
    this.attachments = new Attachments(this.db);
    if (opts.groupCommit) {
      const group = (this.group = new GroupCommit(this.db));
      // Every write of the store joins the loop turn's group (reads need not).
      const all: Array<Statements[keyof Statements]> = [...Object.values(this.s), ...Object.values(moves)];
      for (const st of all) {
        if (st.reader) continue;
        const run = st.run.bind(st);
        st.run = ((...args: unknown[]) => (group.join(), run(...args))) as typeof st.run;
      }
    }
  }

  tx<T>(fn: () => T): T {
    this.group?.join();
    if (this.group || this.db.inTransaction) return this.db.transaction(fn)();
    // The outermost transaction: what waits for its commit runs once it is committed, or never.
    try {
      const out = this.db.transaction(fn)();
      this.runAfterTx();
      return out;
    } finally {
      this.afterTx = [];
    }
  }

  /** Commits the loop turn's writes now (store.groupCommit); without it every write is committed already. */
  commitNow(): void {
    this.group?.flush();
  }

  /** Resolves once every write made so far is committed: at once, without store.groupCommit. */
  committed(): Promise<void> {
    return this.group?.committed() ?? Promise.resolve();
  }

  /**
   * Runs fn once every write made so far is committed, in the order asked: with store.groupCommit
   * after the loop turn's commit, else at the end of the transaction running now, else at once.
   */
  afterCommit(fn: () => void): void {
    if (this.group) this.group.afterCommit(fn);
    else if (this.db.inTransaction) this.afterTx.push(fn);
    else fn();
  }

  private runAfterTx(): void {
    for (const fn of this.afterTx.splice(0)) {
      try {
        fn();
      } catch {
        // An acknowledgement or an event subscriber that throws must not stop the others.
      }
    }
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    this.group?.flush();
    this.db.close();
    await this.checkpointer?.stop();
  }

  integrity(): string {
    return integrityCheck(this.db);
  }

  // ---- conversations ----

  ensureConversation(id: string, channel: string, key: string, title?: string): ConversationRow {
    const cached = this.convCache.get(id);
    if (cached) return cached;
    const now = Date.now();
    this.s.convInsert!.run(id, channel, key, title ?? null, now, now);
    return this.conversation(id)!;
  }

  conversation(id: string): ConversationRow | undefined {
    const cached = this.convCache.get(id);
    if (cached) return cached;
    const r = this.s.convGet!.get(id);
    if (!r) return undefined;
    const row = toConversation(r);
    this.convCache.set(id, row);
    return row;
  }

  conversations(channel?: string, limit = 200): ConversationRow[] {
    return (channel ? this.s.convList!.all(channel, limit) : this.s.convListAll!.all(limit)).map(toConversation);
  }

  /**
   * The conversations that hold a Claude Code session: as their current one, or as the one they
   * resume when they go back to a project (one session, one conversation).
   */
  sessionHolders(sessionId: string): Array<{ conversationId: string; project: string | null }> {
    const current = this.s.convBySession!.all(sessionId).map((r) => toConversation(r));
    const held = new Map<string, string | null>(current.map((c) => [c.id, c.project]));
    for (const r of this.projects.holdersOf(sessionId))
      if (!held.has(r.conversationId)) held.set(r.conversationId, r.project);
    return [...held].map(([conversationId, project]) => ({ conversationId, project }));
  }

  private updateConversation(id: string, stmt: ConversationSetter, value: unknown, field: keyof ConversationRow): void {
    const now = Date.now();
    this.s[stmt]!.run(value, now, id);
    const cached = this.convCache.get(id);
    if (cached) this.convCache.set(id, { ...cached, [field]: value, updatedAt: now });
  }

  /** The session of the conversation's current project; the per-project record follows. */
  setSessionId(id: string, sessionId: string | null): void {
    this.updateConversation(id, 'convSession', sessionId, 'sessionId');
    const project = this.conversation(id)?.project;
    if (project) this.projects.saveSession(id, project, sessionId);
  }

  /** A session id reported by an agent running in `project`: the conversation may have moved on since. */
  setProjectSession(id: string, project: string, sessionId: string | null): void {
    if (this.conversation(id)?.project === project) this.setSessionId(id, sessionId);
    else this.projects.saveSession(id, project, sessionId);
  }

  /** Binds the conversation to a project, with the session it is to resume there (null: a new one). */
  setProject(id: string, project: string, sessionId: string | null): void {
    const now = Date.now();
    this.tx(() => {
      this.s.convProject!.run(project, sessionId, now, id);
      this.projects.saveSession(id, project, sessionId);
    });
    const cached = this.convCache.get(id);
    if (cached) this.convCache.set(id, { ...cached, project, sessionId, updatedAt: now });
  }

  setModel(id: string, model: string | null): void {
    this.updateConversation(id, 'convModel', model, 'model');
  }

  setQueueMode(id: string, mode: string | null): void {
    this.updateConversation(id, 'convMode', mode, 'queueMode');
  }

  setCutoff(id: string, at: number): void {
    this.updateConversation(id, 'convCutoff', at, 'cutoffAt');
  }

  setTitle(id: string, title: string | null): void {
    this.updateConversation(id, 'convTitle', title, 'title');
  }

  setArchived(id: string, archivedAt: number | null): void {
    this.updateConversation(id, 'convArchived', archivedAt, 'archivedAt');
  }

  /** Moves the read mark forward (never back: two devices may report out of order). */
  markRead(id: string, seq: number): void {
    this.s.convRead!.run(seq, id);
    const cached = this.convCache.get(id);
    if (cached) this.convCache.set(id, { ...cached, lastReadSeq: Math.max(cached.lastReadSeq, seq) });
  }

  // ---- inbox (the messages and their states: inbox.ts) ----

  /** Commits an inbound message; a redelivery (same channel and platform id) returns the existing row. */
  insertMessage(m: NewMessage): { row: MessageRow; duplicate: boolean } {
    return this.inbox.insert(m);
  }

  message(id: string): MessageRow | undefined {
    return this.inbox.get(id);
  }

  messageByPlatformId(channel: string, platformMessageId: string): MessageRow | undefined {
    return this.inbox.byPlatformId(channel, platformMessageId);
  }

  recentMessages(conversationId: string, limit = 100): MessageRow[] {
    return this.inbox.recent(conversationId, limit);
  }

  countsByState(): Record<string, number> {
    return this.inbox.countsByState();
  }

  // ---- outbox ----

  addOutbox(o: NewOutbox): OutboxRow {
    const id = newId('o');
    this.s.outInsert!.run({
      id,
      conversationId: o.conversationId,
      kind: o.kind,
      messageIds: json(o.messageIds),
      replyTo: o.replyTo ?? null,
      text: o.text,
      fromFallback: o.fromFallback ? 1 : 0,
      createdAt: Date.now(),
    });
    return toOutbox(this.s.outGet!.get(id)!);
  }

  owed(limit = 500): OutboxRow[] {
    return this.s.outOwed!.all(limit).map(toOutbox);
  }

  owedFor(conversationId: string): OutboxRow[] {
    return this.s.outOwedFor!.all(conversationId).map(toOutbox);
  }

  owedCount(): number {
    return this.s.outOwedCount!.get()!.n;
  }

  recentOutbox(conversationId: string, limit = 100): OutboxRow[] {
    return this.s.outByConv!.all(conversationId, limit).map(toOutbox).reverse();
  }

  /** Marks a reply delivered and logs its 'reply' event, in one transaction, at most once. */
  markDelivered(row: OutboxRow, event: { type: EventType; data: Record<string, unknown> }): EventRow | undefined {
    return this.tx(() => {
      const changed = this.s.outDelivered!.run(Date.now(), row.id).changes;
      if (!changed) return undefined;
      return this.appendEventLocked(row.conversationId, event.type, row.messageIds[0] ?? null, event.data, row.id);
    });
  }

  /** An owed voice note whose audio cannot be made becomes a notice saying so (delivered as any notice). */
  outboxToNotice(id: string, text: string): void {
    this.s.outToNotice.run(text, id);
  }

  /** Marks a voice note delivered (it logs no event: the page plays replies from the reply itself), at most once. */
  markSent(row: OutboxRow): boolean {
    return this.s.outDelivered!.run(Date.now(), row.id).changes > 0;
  }

  /** One outbox row. */
  outboxRow(id: string): OutboxRow | undefined {
    const r = this.s.outGet!.get(id);
    return r ? toOutbox(r) : undefined;
  }

  markAttempt(id: string, error: string, nextAttemptAt: number): void {
    this.s.outAttempt!.run(error.slice(0, 500), nextAttemptAt, id);
  }

  // ---- events ----

  appendEvent(
    conversationId: string,
    type: EventType,
    messageId: string | null,
    /** Plain data, stored as JSON. */
    data: object,
  ): EventRow {
    return this.appendEventLocked(conversationId, type, messageId, data, null)!;
  }

  private appendEventLocked(
    conversationId: string,
    type: EventType,
    messageId: string | null,
    data: object,
    outboxId: string | null,
  ): EventRow | undefined {
    const now = Date.now();
    const info = this.s.evInsert!.run(conversationId, type, messageId, outboxId, json(data), now);
    if (!info.changes) return undefined;
    return {
      seq: Number(info.lastInsertRowid),
      conversationId,
      type,
      messageId,
      data: data as Record<string, unknown>,
      createdAt: now,
    };
  }

  lastEventSeq(conversationId: string): number {
    return this.s.evLast!.get(conversationId)?.seq ?? 0;
  }

  eventsSince(conversationId: string, seq: number, limit = 1000): EventRow[] {
    return this.s.evSince!.all(conversationId, seq, limit).map(toEvent);
  }

  pruneEvents(olderThanMs: number): number {
    return this.s.evPrune!.run(Date.now() - olderThanMs).changes;
  }

  // ---- turns ----

  /**
   * Records a turn once, whether the lane started it or the agent did (a queued steer), with the project the
   * conversation works in (its spending counts there).
   */
  turnStarted(
    id: string,
    conversationId: string,
    inputIds: string[],
    sessionId: string | null,
    project: string | null = null,
  ): void {
    this.s.turnStart!.run(id, conversationId, Date.now(), json(inputIds), sessionId, project);
  }

  /** A turn recorded before its hand-off that never started (the agent was busy with one of its own). */
  turnDiscarded(id: string): void {
    this.s.turnDiscard.run(id);
  }

  turnEnded(
    id: string,
    outcome: string,
    steered: number,
    inputIds: string[],
    sessionId: string | null,
    error: string | null,
    at = Date.now(),
  ): void {
    this.s.turnEnd!.run(at, outcome, steered, json(inputIds), sessionId, error, id);
  }

  /** What a turn used, as its backend reported at its end. */
  turnCost(id: string, c: TurnCost): void {
    this.s.turnCost.run(
      c.inputTokens,
      c.outputTokens,
      c.cacheReadTokens,
      c.cacheCreationTokens,
      c.costUsd,
      c.models ? json(c.models) : null,
      Math.round(c.durationMs),
      id,
    );
  }

  /** A conversation's turns, newest first, started before `before` (epoch ms) when given. */
  turnsOf(conversationId: string, before: number | undefined, limit: number): TurnRow[] {
    return this.s.turnsOf!.all(conversationId, before ?? Number.MAX_SAFE_INTEGER, limit).map(toTurn);
  }

  turn(id: string): TurnRow | undefined {
    const r = this.s.turnGet!.get(id);
    return r ? toTurn(r) : undefined;
  }

  /** Appends a tool call the turn started (at most MAX_TURN_TOOLS are kept). */
  turnToolStarted(id: string, tool: ToolCall): void {
    this.s.turnTool!.run(json(tool), id, MAX_TURN_TOOLS);
  }

  // ---- steps ----

  /** Writes a step as it is now (a tool step is written again when its result comes). */
  putStep(step: StoredStep): void {
    this.s.stepPut!.run(step.turnId, step.index, step.conversationId, step.kind, json(step), step.at);
  }

  /** The steps of these turns, in order, by turn id. */
  stepsOf<S extends StoredStep>(turnIds: string[]): Map<string, S[]> {
    const out = new Map<string, S[]>();
    if (!turnIds.length) return out;
    const rows = this.db
      .prepare(
        `SELECT turn_id, data FROM steps WHERE turn_id IN (${turnIds.map(() => '?').join(',')}) ORDER BY turn_id, idx`,
      )
      .all(...turnIds) as Array<{ turn_id: string; data: string }>;
    for (const r of rows) {
      const list = out.get(r.turn_id) ?? [];
      list.push(JSON.parse(r.data) as S);
      out.set(r.turn_id, list);
    }
    return out;
  }

  // ---- agent processes ----

  processStarted(pid: number, conversationId: string): void {
    if (this.db.open) this.s.procAdd!.run(pid, conversationId, Date.now());
  }

  /** Also called for a process that ends after the store closed (its row is then cleaned at the next start). */
  processExited(pid: number): void {
    if (this.db.open) this.s.procRemove!.run(pid);
  }

  processes(): Array<{ pid: number; conversationId: string; startedAt: number }> {
    return this.s
      .procAll!.all()
      .map((r) => ({ pid: r.pid, conversationId: r.conversation_id, startedAt: r.started_at }));
  }
}
