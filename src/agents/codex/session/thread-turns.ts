/**
 * The turns of one thread as codex reports them: starting a turn (load the thread, turn/start),
 * routing each notification and server request to the running turn, deciding the outcome at
 * turn/completed, and failing what a dead server cut off. Every method but run() is called
 * inside the session's turn lock.
 */
import fs from 'node:fs';
import { asRudderError, RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import type { ExitInfo } from '../../claude/process.js';
import { agentText } from '../../common/agent-text.js';
import type { TurnLock } from '../../common/turn-lock.js';
import type { TurnSlot } from '../../common/turn-slot.js';
import type { UserInput } from '../../session.js';
import type { CodexLaunch } from '../launch.js';
import { type RequestId, textInput, type v2 } from '../protocol/index.js';
import type { ExitWhy } from '../server/app-server.js';
import { CodexRpcError } from '../server/rpc.js';
import { PendingApprovals } from './approvals.js';
import { decodeClientId, encodeClientId } from './client-id.js';
import { CodexTurn } from './codex-turn.js';
import { type OutcomeContext, turnOutcome, unconfirmedInterrupt } from './results.js';
import { PendingSteers } from './steers.js';
import { isMissingThread, type ThreadLink } from './thread-link.js';

/** Told to the model, after Rudder's own note, when a re-run's input is already in the thread. */
export const HELD_NOTE =
  '[Rudder] The message this note is about is already above in this conversation (the turn that took it in ' +
  'was cut off); it is not repeated here. Answer it now.';

const turnIdOf = (params: unknown): string | undefined => {
  const p = params as { turnId?: unknown; turn?: { id?: unknown } } | null;
  return typeof p?.turnId === 'string' ? p.turnId : typeof p?.turn?.id === 'string' ? p.turn.id : undefined;
};

/** Ids kept per session: enough for any late notification, bounded over a long conversation. */
const KEEP_IDS = 2_000;

function remember(set: Set<string>, id: string): void {
  set.add(id);
  if (set.size > KEEP_IDS) set.delete(set.values().next().value!);
}

export interface ThreadTurnsOptions {
  launch: CodexLaunch;
  log: Logger;
  lock: TurnLock;
  link: ThreadLink;
  /** The session's running turn: a turn begun here (the session's, or one for steers put back) opens in it. */
  turns: TurnSlot<CodexTurn>;
  stopped(): boolean;
  /** The thread id, after every turn: persisted. */
  persist(threadId: string): void;
  /** Arms the turn timeout (the session interrupts a turn that runs past it). */
  startTimer(turn: CodexTurn): void;
}

export class ThreadTurns {
  /** A turn of this conversation was cut off by its server's death (cleared by the next turn). */
  crashed = false;
  readonly approvals = new PendingApprovals();
  readonly steers: PendingSteers;
  /** Codex ids of turns that ended: their late notifications (a command that outlived it) are ignored. */
  private readonly ended = new Set<string>();
  /** Command ids of earlier turns: an interrupt ends only the running turn's commands. */
  readonly earlierCommands = new Set<string>();
  private readonly conversationId: string;

  constructor(private readonly o: ThreadTurnsOptions) {
    this.conversationId = o.launch.conversationId;
    this.steers = new PendingSteers({
      conversationId: this.conversationId,
      lock: o.lock,
      log: o.log,
      server: () => o.link.server(),
      threadId: () => o.link.threadId,
      turns: o.turns,
      stopped: o.stopped,
      beginTurn: (inputs) => this.begin(inputs),
    });
  }

  get current(): CodexTurn | undefined {
    return this.o.turns.current;
  }

  inFlight(): boolean {
    return this.current !== undefined || this.steers.waiting() > 0 || this.steers.sending() > 0;
  }

  /** Starts a turn now (nothing may be running), with the id the caller chose if any; start-up failures settle it. */
  begin(inputs: UserInput[], turnId?: string): CodexTurn {
    const turn = new CodexTurn(
      inputs.map((i) => i.id),
      turnId,
    );
    this.crashed = false;
    this.o.startTimer(turn);
    this.announce(turn);
    void this.run(turn, inputs);
    return turn;
  }

  /** Ends a turn's bookkeeping (the caller settles it). */
  finish(turn: CodexTurn): void {
    clearTimeout(turn.timer);
    this.o.turns.close(turn);
    if (turn.codexTurnId) remember(this.ended, turn.codexTurnId);
    for (const id of turn.items.commandIds) remember(this.earlierCommands, id);
    this.approvals.dropFor(turn);
  }

  /** Ends an interrupted turn Rudder will not wait for (codex did not confirm it, or never got it). */
  abandon(turn: CodexTurn, terminalReason?: string): void {
    if (turn.isSettled()) return;
    this.finish(turn);
    this.steers.turnEnded(turn, { cancel: turn.cancelQueued });
    turn.succeed(unconfirmedInterrupt(turn, this.o.link.threadId, terminalReason));
  }

  /** Asks codex to stop the turn; sent as soon as codex's turn id is known. */
  interrupt(turn: CodexTurn): void {
    turn.interruptRequested = true;
    const server = this.o.link.server();
    const threadId = this.o.link.threadId;
    if (!server || !threadId || !turn.codexTurnId) return;
    server
      .request('turn/interrupt', { threadId, turnId: turn.codexTurnId })
      .catch((err: Error) => this.o.log.debug({ err: err.message }, 'turn/interrupt failed (the turn may have ended)'));
  }

  notification(method: string, params: unknown): void {
    if (method === 'serverRequest/resolved') {
      const server = this.o.link.server();
      if (server) this.approvals.resolved(server, (params as v2.ServerRequestResolvedNotification).requestId);
      return;
    }
    if (method === 'thread/closed') {
      this.o.link.dropped();
      return;
    }
    if (method === 'turn/started') {
      this.started((params as v2.TurnStartedNotification).turn);
      return;
    }
    const turn = this.turnFor(turnIdOf(params));
    if (!turn) {
      this.o.log.debug({ method, turnId: turnIdOf(params) ?? null }, 'codex: notification for no running turn');
      return;
    }
    if (method === 'turn/completed') {
      this.completed(turn, (params as v2.TurnCompletedNotification).turn);
      return;
    }
    if (method === 'item/started') {
      const item = (params as v2.ItemStartedNotification).item;
      if (item.type === 'userMessage') {
        for (const id of decodeClientId(item.clientId) ?? []) this.o.link.held.add(id);
        if (item.clientId && item.clientId !== turn.clientId) this.steers.absorbed(item.clientId, turn);
        return;
      }
    }
    turn.items.handle(method, params, turn);
  }

  request(id: RequestId, method: string, params: unknown): void {
    const server = this.o.link.server();
    if (server) this.approvals.open(server, id, method, params, this.turnFor(turnIdOf(params)));
  }

  /** The server died: the running turn fails (naming its inputs), steers not taken in are lost. */
  serverExit(info: ExitInfo, why: ExitWhy): void {
    this.o.link.dropped();
    const turn = this.current;
    // Only a conversation whose turn it cut off counts as crashed; an idle one resumes on the next server.
    if (!this.o.stopped() && !info.reason && this.inFlight()) this.crashed = true;
    if (turn) {
      this.finish(turn);
      if (turn.interruptRequested && info.reason?.startsWith('interrupt'))
        turn.succeed(unconfirmedInterrupt(turn, this.o.link.threadId));
      else
        turn.fail(
          new RudderError(why.code, why.detail, {
            conversationId: this.conversationId,
            exitCode: info.code,
            signal: info.signal,
            unanswered: turn.inputIds(),
          }),
        );
    }
    this.steers.dropAll(why.code, why.detail);
    this.approvals.dropFor(undefined);
  }

  /** The turn is the running one, and its listeners are told. */
  private announce(turn: CodexTurn): void {
    turn.emit({ type: 'started', inputIds: turn.inputIds() });
    this.o.turns.open(turn);
  }

  /** The input text: wrapped, and only the note for an input the thread already holds (a re-run after a crash). */
  private agentInput(inputs: UserInput[]): v2.UserInput[] {
    const held = this.o.link.held;
    const effective = inputs.map((i) =>
      i.note && !i.inSession && held.has(i.id) ? { ...i, inSession: true, note: `${i.note}\n${HELD_NOTE}` } : i,
    );
    return [textInput(agentText(effective))];
  }

  /** Loads the thread (starting the server when needed), then turn/start. Runs outside the lock. */
  private async run(turn: CodexTurn, inputs: UserInput[]): Promise<void> {
    const link = this.o.link;
    // Called inside the lock: everything from here runs after it, so a failure can settle the turn.
    await Promise.resolve();
    try {
      // Codex would start a thread in a directory that is not there (and fail each command in it).
      const cwd = this.o.launch.cwd;
      if (!fs.existsSync(cwd))
        throw new RudderError('AGENT_SPAWN_FAILED', `The working directory ${cwd} does not exist.`, { cwd });
      let server = await link.open();
      if (this.current !== turn) return;
      // Stopped while the thread was loading: nothing reached codex, nothing is sent.
      if (turn.interruptRequested) {
        this.o.lock.run(() => this.abandon(turn, 'interrupted_before_start'));
        return;
      }
      turn.clientId = encodeClientId(inputs.map((i) => i.id));
      const params = () => ({
        threadId: link.threadId!,
        clientUserMessageId: turn.clientId,
        input: this.agentInput(inputs),
      });
      let res: v2.TurnStartResponse;
      try {
        res = await server.request('turn/start', params());
      } catch (err) {
        // Codex unloaded the thread (it does after 30 idle minutes without a subscriber): load it again, once.
        if (!isMissingThread(err) || this.current !== turn) throw err;
        link.dropped();
        server = await link.open();
        res = await server.request('turn/start', params());
      }
      this.o.lock.run(() => {
        if (this.current === turn) this.adopt(turn, res.turn.id);
      });
    } catch (err) {
      this.o.lock.run(() => {
        if (turn.isSettled()) return;
        const context = { conversationId: this.conversationId, unanswered: turn.inputIds() };
        const e =
          err instanceof CodexRpcError
            ? new RudderError('AGENT_TURN_FAILED', err.message, context, err)
            : asRudderError(err, 'AGENT_SPAWN_FAILED', context);
        this.o.log.warn({ code: e.code, err: e.message }, 'codex turn could not start');
        this.finish(turn);
        this.steers.turnEnded(turn, { cancel: false, failed: e });
        turn.fail(e);
      });
    }
  }

  private adopt(turn: CodexTurn, codexTurnId: string): void {
    if (turn.codexTurnId) return;
    turn.codexTurnId = codexTurnId;
    if (turn.interruptRequested) this.interrupt(turn);
  }

  /**
   * The turn a notification is about: the running one, when the ids agree. Codex's id is learnt only
   * from turn/start's answer or turn/started: after a resume codex still reports on the turn a crash
   * cut off (its command ending), and such a line must not be taken for the new turn's.
   */
  private turnFor(turnId: string | undefined): CodexTurn | undefined {
    const cur = this.current;
    if (!cur || (turnId && this.ended.has(turnId))) return undefined;
    if (!turnId) return cur;
    return cur.codexTurnId === turnId ? cur : undefined;
  }

  private started(t: v2.Turn): void {
    if (this.ended.has(t.id)) return;
    let turn = this.current;
    if (turn?.codexTurnId && turn.codexTurnId !== t.id) {
      this.o.log.warn({ running: turn.codexTurnId, started: t.id }, 'codex started a turn while another runs; ignored');
      return;
    }
    if (!turn) {
      // Codex started a turn of its own (not seen on 0.171): it gets a turn; its inputs come with its items.
      turn = new CodexTurn([]);
      this.announce(turn);
    }
    this.adopt(turn, t.id);
    turn.open = true;
    this.steers.opened(turn);
  }

  private completed(turn: CodexTurn, t: v2.Turn): void {
    const server = this.o.link.server();
    const ctx: OutcomeContext = {
      conversationId: this.conversationId,
      threadId: this.o.link.threadId,
      pid: server?.pid,
      rateLimits: server?.rateLimits(),
    };
    const outcome = turnOutcome(t, turn, ctx);
    this.finish(turn);
    this.steers.turnEnded(turn, { cancel: turn.cancelQueued, failed: 'error' in outcome ? outcome.error : undefined });
    if (this.o.link.threadId) this.o.persist(this.o.link.threadId);
    if ('ok' in outcome) turn.succeed(outcome.ok);
    else turn.fail(outcome.error);
    this.steers.drain();
  }
}
