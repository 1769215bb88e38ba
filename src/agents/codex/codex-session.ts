/**
 * A conversation on Codex: one thread on a (shared) `codex app-server`. thread/start or
 * thread/resume with the conversation's cwd and policy, turn/start for a turn, turn/steer with
 * expectedTurnId for every message sent mid-turn (session/steers.ts), turn/interrupt for a stop,
 * and the thread id saved after every turn. Attribution comes from the client id codex echoes on
 * each userMessage item, so every result names the inputs it answers.
 *
 * Ordering: notifications, server requests, the server's exit and every public call run inside the
 * turn lock (synchronous sections only); the awaits of a turn's start happen outside it and check,
 * back inside, that the turn is still the current one.
 */
import { asRudderError, RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { ExitInfo } from '../claude/process.js';
import { agentText } from '../common/agent-text.js';
import { TurnLock } from '../common/turn-lock.js';
import {
  type AgentSession,
  type Capabilities,
  type PermissionAnswer,
  type SessionState,
  type SteerPromise,
  type SteerResult,
  steerPromise,
  type Turn,
  type TurnInput,
  type UserInput,
} from '../session.js';
import {
  type CodexLaunch,
  DEFAULT_INTERRUPT_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_TURN_TIMEOUT_MS,
} from './launch.js';
import { type RequestId, textInput, type v2 } from './protocol/index.js';
import type { ExitWhy } from './server/app-server.js';
import { CodexRpcError } from './server/rpc.js';
import { CodexServers } from './server/servers.js';
import { ApprovalDesk } from './session/approvals.js';
import { decodeClientId, encodeClientId } from './session/client-id.js';
import { CodexTurn } from './session/codex-turn.js';
import { type OutcomeContext, turnOutcome, unconfirmedInterrupt } from './session/results.js';
import { SteerDesk } from './session/steers.js';
import { isMissingThread, ThreadLink } from './session/thread-link.js';

/** Told to the model, after Rudder's own note, when a re-run's input is already in the thread. */
export const HELD_NOTE =
  '[Rudder] The message this note is about is already above in this conversation (the turn that took it in ' +
  'was cut off); it is not repeated here. Answer it now.';

const turnIdOf = (params: unknown): string | undefined => {
  const p = params as { turnId?: unknown; turn?: { id?: unknown } } | null;
  return typeof p?.turnId === 'string' ? p.turnId : typeof p?.turn?.id === 'string' ? p.turn.id : undefined;
};

export class CodexSession implements AgentSession {
  readonly backend = 'codex' as const;
  readonly capabilities: Capabilities = { steer: 'native', interrupt: true, resume: true };
  readonly conversationId: string;

  private readonly launch: CodexLaunch;
  private readonly log: Logger;
  private readonly lock = new TurnLock();
  private readonly servers: CodexServers;
  /** The session started its own app-server pool (no shared one was given): it stops it with itself. */
  private readonly ownServers: boolean;
  private readonly link: ThreadLink;
  private readonly approvals = new ApprovalDesk();
  private readonly steers: SteerDesk;
  private readonly turnListeners = new Set<(t: Turn) => void>();
  private current: CodexTurn | undefined;
  /** Codex ids of turns that ended: their late notifications (a command that outlived it) are ignored. */
  private readonly ended = new Set<string>();
  /** Command ids of earlier turns: an interrupt ends only the running turn's commands. */
  private readonly earlierCommands = new Set<string>();
  private stopped = false;
  private crashed = false;
  private lastActive = Date.now();

  constructor(launch: CodexLaunch) {
    this.launch = launch;
    this.conversationId = launch.conversationId;
    this.log = launch.logger.child({ conversationId: launch.conversationId, backend: this.backend });
    this.ownServers = !launch.servers;
    this.servers =
      launch.servers ??
      new CodexServers({
        logger: this.log,
        tracker: launch.tracker,
        markPrefix: launch.markPrefix,
        killGraceMs: launch.killGraceMs,
      });
    this.link = new ThreadLink({
      launch,
      servers: this.servers,
      log: this.log,
      handler: {
        notification: (m, p) => this.lock.run(() => this.onNotificationLocked(m, p)),
        request: (id, m, p) => this.lock.run(() => this.onRequestLocked(id, m, p)),
        exit: (info, why) => this.lock.run(() => this.onServerExitLocked(info, why)),
      },
      onThreadId: (id) => this.persistThreadId(id),
    });
    this.steers = new SteerDesk({
      conversationId: this.conversationId,
      lock: this.lock,
      log: this.log,
      server: () => this.link.server(),
      threadId: () => this.link.threadId,
      current: () => this.current,
      stopped: () => this.stopped,
      beginTurn: (inputs) => this.beginTurnLocked(inputs),
    });
  }

  sessionId(): string | undefined {
    return this.link.threadId;
  }

  /** The app-server's pid (shared with the other conversations on it). */
  pid(): number | undefined {
    return this.link.server()?.pid;
  }

  state(): SessionState {
    if (this.stopped) return 'stopped';
    if (this.inFlight()) return 'busy';
    return this.crashed ? 'dead' : 'idle';
  }

  lastActiveAt(): number {
    return this.lastActive;
  }

  steeredCount(): number {
    return this.steers.steered();
  }

  currentTurn(): Turn | undefined {
    return this.current;
  }

  onTurn(listener: (turn: Turn) => void): () => void {
    this.turnListeners.add(listener);
    return () => void this.turnListeners.delete(listener);
  }

  /** Recent stderr of the app-server, for `rudder status` and error reports. */
  stderrTail(): string[] {
    return this.link.server()?.stderrTail() ?? [];
  }

  startTurn(input: TurnInput): Turn {
    return this.lock.run(() => {
      if (this.stopped) throw new RudderError('AGENT_STOPPED', undefined, { conversationId: this.conversationId });
      if (this.inFlight()) throw new RudderError('AGENT_BUSY', undefined, { conversationId: this.conversationId });
      return this.beginTurnLocked(input.inputs);
    });
  }

  steer(input: UserInput): SteerPromise {
    let settle!: { resolve: (r: SteerResult) => void; reject: (e: RudderError) => void };
    const outcome = new Promise<SteerResult>((resolve, reject) => (settle = { resolve, reject }));
    const immediate = this.lock.run((): SteerResult | undefined => {
      if (this.stopped) return { outcome: 'process-dead' };
      const turn = this.current;
      if (!turn) {
        if (!this.link.server()) return { outcome: 'process-dead' };
        return { outcome: 'ran-as-turn', turn: this.beginTurnLocked([input]) };
      }
      this.steers.add(input, turn, settle);
      return undefined;
    });
    if (immediate) return steerPromise(Promise.resolve(immediate), immediate.outcome !== 'process-dead');
    return steerPromise(outcome, true);
  }

  /**
   * turn/interrupt, then the commands the turn started are ended (codex leaves them running):
   * resolves when the turn is over and they are gone.
   */
  async interrupt(opts: { cancelQueued?: boolean } = {}): Promise<void> {
    const older = new Set(this.earlierCommands);
    const turn = this.lock.run(() => {
      const t = this.current;
      if (!t) {
        if (opts.cancelQueued) this.steers.dropAll('AGENT_STOPPED', 'The message was withdrawn by a stop.');
        return undefined;
      }
      t.interruptRequested = true;
      if (opts.cancelQueued) t.cancelQueued = true;
      if (t.codexTurnId) this.sendInterruptLocked(t);
      return t;
    });
    if (!turn) return;
    const grace = this.launch.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS;
    const settled = turn.result.then(
      () => true,
      () => true,
    );
    const inTime = await Promise.race([settled, new Promise<false>((r) => setTimeout(() => r(false), grace).unref())]);
    if (!inTime) await this.interruptUnconfirmed(turn, grace);
    const server = this.link.server();
    const threadId = this.link.threadId;
    if (server && threadId) {
      const ended = await server.endCommands(threadId, this.killGraceMs(), (id) => !older.has(id ?? ''));
      if (ended.length) this.log.info({ pids: ended }, 'interrupt: ended the commands the turn had started');
    }
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    return this.lock.run(() => this.approvals.answer(requestId, answer));
  }

  /** Ends the turn, every command of the thread and this conversation's use of the app-server; the thread stays resumable. */
  async stop(reason: string): Promise<void> {
    this.lock.run(() => {
      if (this.stopped) return;
      this.stopped = true;
      const turn = this.current;
      if (turn) {
        if (turn.codexTurnId) this.sendInterruptLocked(turn);
        this.finishTurnLocked(turn);
        this.steers.turnEnded(turn, { cancel: true });
        turn.fail(
          new RudderError('AGENT_STOPPED', `Stopped: ${reason}.`, {
            conversationId: this.conversationId,
            unanswered: turn.inputIds(),
          }),
        );
      }
      this.steers.dropAll('AGENT_STOPPED', `Stopped: ${reason}.`);
      this.approvals.dropFor(undefined);
    });
    const server = this.link.server();
    const threadId = this.link.threadId;
    if (server && threadId) await server.endCommands(threadId, this.killGraceMs());
    await this.link.close(reason);
    if (this.ownServers) await this.servers.stopAll(reason);
  }

  private killGraceMs(): number {
    return this.launch.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  /** Codex did not end the turn in time: a private server is killed (as Claude's process is); on a shared one, Rudder ends the turn itself. */
  private async interruptUnconfirmed(turn: CodexTurn, grace: number): Promise<void> {
    const server = this.link.server();
    this.log.warn({ graceMs: grace, shared: !this.ownServers }, 'interrupt: codex did not end the turn in time');
    if (this.ownServers && server) {
      await server.kill(`interrupt: no turn/completed within ${grace} ms`, this.killGraceMs());
      return;
    }
    this.lock.run(() => {
      if (turn.isSettled()) return;
      this.finishTurnLocked(turn);
      this.steers.turnEnded(turn, { cancel: turn.cancelQueued });
      turn.succeed(unconfirmedInterrupt(turn, this.link.threadId));
    });
  }

  // ---- inside the lock ----

  private inFlight(): boolean {
    return this.current !== undefined || this.steers.waiting() > 0;
  }

  private beginTurnLocked(inputs: UserInput[]): CodexTurn {
    const turn = new CodexTurn(inputs.map((i) => i.id));
    this.current = turn;
    this.crashed = false;
    this.lastActive = Date.now();
    const timeout = this.launch.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
    turn.timer = setTimeout(() => {
      turn.timedOut = true;
      this.log.warn({ timeoutMs: timeout }, 'turn timeout: interrupting');
      void this.interrupt();
    }, timeout);
    turn.timer.unref();
    turn.emit({ type: 'started', inputIds: turn.inputIds() });
    queueMicrotask(() => {
      for (const l of this.turnListeners) l(turn);
    });
    void this.runTurn(turn, inputs);
    return turn;
  }

  /** The input text: wrapped, and only the note for an input the thread already holds (a re-run after a crash). */
  private agentInput(inputs: UserInput[]): v2.UserInput[] {
    const effective = inputs.map((i) =>
      i.note && !i.inSession && this.link.held.has(i.id)
        ? { ...i, inSession: true, note: `${i.note}\n${HELD_NOTE}` }
        : i,
    );
    return [textInput(agentText(effective))];
  }

  /** Loads the thread (starting the server when needed), then turn/start. Failures settle the turn. */
  private async runTurn(turn: CodexTurn, inputs: UserInput[]): Promise<void> {
    try {
      let server = await this.link.open();
      if (this.current !== turn) return;
      turn.clientId = encodeClientId(inputs.map((i) => i.id));
      const params = () => ({
        threadId: this.link.threadId!,
        clientUserMessageId: turn.clientId,
        input: this.agentInput(inputs),
      });
      let res: v2.TurnStartResponse;
      try {
        res = await server.request('turn/start', params());
      } catch (err) {
        // Codex unloaded the thread (it does after 30 idle minutes without a subscriber): load it again, once.
        if (!isMissingThread(err) || this.current !== turn) throw err;
        this.link.dropped();
        server = await this.link.open();
        res = await server.request('turn/start', params());
      }
      this.lock.run(() => {
        if (this.current === turn) this.adoptLocked(turn, res.turn.id);
      });
    } catch (err) {
      this.lock.run(() => {
        if (turn.isSettled()) return;
        const context = { conversationId: this.conversationId, unanswered: turn.inputIds() };
        const e =
          err instanceof CodexRpcError
            ? new RudderError('AGENT_TURN_FAILED', err.message, context, err)
            : asRudderError(err, 'AGENT_SPAWN_FAILED', context);
        this.log.warn({ code: e.code, err: e.message }, 'codex turn could not start');
        this.finishTurnLocked(turn);
        this.steers.turnEnded(turn, { cancel: false, failed: e });
        turn.fail(e);
      });
    }
  }

  private adoptLocked(turn: CodexTurn, codexTurnId: string): void {
    if (turn.codexTurnId) return;
    turn.codexTurnId = codexTurnId;
    if (turn.interruptRequested) this.sendInterruptLocked(turn);
  }

  private sendInterruptLocked(turn: CodexTurn): void {
    const server = this.link.server();
    const threadId = this.link.threadId;
    if (!server || !threadId || !turn.codexTurnId) return;
    server
      .request('turn/interrupt', { threadId, turnId: turn.codexTurnId })
      .catch((err: Error) => this.log.debug({ err: err.message }, 'turn/interrupt failed (the turn may have ended)'));
  }

  private finishTurnLocked(turn: CodexTurn): void {
    clearTimeout(turn.timer);
    if (this.current === turn) this.current = undefined;
    if (turn.codexTurnId) this.ended.add(turn.codexTurnId);
    for (const id of turn.items.commandIds) this.earlierCommands.add(id);
    this.lastActive = Date.now();
    this.approvals.dropFor(turn);
  }

  /** The turn a notification is about: the running one, when the ids agree (or codex's id is not known yet). */
  private turnForLocked(turnId: string | undefined): CodexTurn | undefined {
    const cur = this.current;
    if (!cur || (turnId && this.ended.has(turnId))) return undefined;
    if (!turnId) return cur;
    if (!cur.codexTurnId) this.adoptLocked(cur, turnId);
    return cur.codexTurnId === turnId ? cur : undefined;
  }

  private onNotificationLocked(method: string, params: unknown): void {
    if (method === 'serverRequest/resolved') {
      const server = this.link.server();
      if (server) this.approvals.resolved(server, (params as v2.ServerRequestResolvedNotification).requestId);
      return;
    }
    if (method === 'thread/closed') {
      this.link.dropped();
      return;
    }
    if (method === 'turn/started') {
      this.turnStartedLocked((params as v2.TurnStartedNotification).turn);
      return;
    }
    const turn = this.turnForLocked(turnIdOf(params));
    if (!turn) {
      this.log.debug({ method, turnId: turnIdOf(params) ?? null }, 'codex: notification for no running turn');
      return;
    }
    if (method === 'turn/completed') {
      this.turnCompletedLocked(turn, (params as v2.TurnCompletedNotification).turn);
      return;
    }
    if (method === 'item/started') {
      const item = (params as v2.ItemStartedNotification).item;
      if (item.type === 'userMessage') {
        for (const id of decodeClientId(item.clientId) ?? []) this.link.held.add(id);
        if (item.clientId && item.clientId !== turn.clientId) this.steers.absorbed(item.clientId, turn);
        return;
      }
    }
    turn.items.handle(method, params, turn);
  }

  private turnStartedLocked(t: v2.Turn): void {
    if (this.ended.has(t.id)) return;
    let turn = this.current;
    if (turn?.codexTurnId && turn.codexTurnId !== t.id) {
      this.log.warn({ running: turn.codexTurnId, started: t.id }, 'codex started a turn while another runs; ignored');
      return;
    }
    // Codex started a turn of its own (not seen on 0.171): it gets a turn, and its inputs come with its items.
    turn ??= this.beginOwnTurnLocked();
    this.adoptLocked(turn, t.id);
    turn.open = true;
    this.steers.opened(turn);
  }

  private beginOwnTurnLocked(): CodexTurn {
    const turn = new CodexTurn([]);
    this.current = turn;
    this.lastActive = Date.now();
    turn.emit({ type: 'started', inputIds: [] });
    queueMicrotask(() => {
      for (const l of this.turnListeners) l(turn);
    });
    return turn;
  }

  private turnCompletedLocked(turn: CodexTurn, t: v2.Turn): void {
    const server = this.link.server();
    const ctx: OutcomeContext = {
      conversationId: this.conversationId,
      threadId: this.link.threadId,
      pid: server?.pid,
      rateLimits: server?.rateLimits(),
    };
    const outcome = turnOutcome(t, turn, ctx);
    this.finishTurnLocked(turn);
    this.steers.turnEnded(turn, { cancel: turn.cancelQueued, failed: 'error' in outcome ? outcome.error : undefined });
    if (this.link.threadId) this.persistThreadId(this.link.threadId);
    if ('ok' in outcome) turn.succeed(outcome.ok);
    else turn.fail(outcome.error);
    this.steers.drain();
  }

  private onRequestLocked(id: RequestId, method: string, params: unknown): void {
    const server = this.link.server();
    if (!server) return;
    this.approvals.open(server, id, method, params, this.turnForLocked(turnIdOf(params)));
  }

  private onServerExitLocked(info: ExitInfo, why: ExitWhy): void {
    this.link.dropped();
    const turn = this.current;
    // Only a conversation whose turn it cut off counts as crashed; an idle one resumes on the next server.
    if (!this.stopped && !info.reason && (turn || this.steers.waiting() > 0)) this.crashed = true;
    const context = { conversationId: this.conversationId, exitCode: info.code, signal: info.signal };
    if (turn) {
      this.finishTurnLocked(turn);
      if (turn.interruptRequested && info.reason?.startsWith('interrupt'))
        turn.succeed(unconfirmedInterrupt(turn, this.link.threadId));
      else turn.fail(new RudderError(why.code, why.detail, { ...context, unanswered: turn.inputIds() }));
    }
    this.steers.dropAll(why.code, why.detail);
    this.approvals.dropFor(undefined);
  }

  private persistThreadId(threadId: string): void {
    try {
      this.launch.onSessionId?.(threadId);
    } catch (err) {
      this.log.error({ err }, 'persisting the thread id failed');
    }
  }
}
