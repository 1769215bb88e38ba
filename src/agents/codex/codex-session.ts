/**
 * A conversation on Codex: one thread on a (shared) `codex app-server`. thread/start or
 * thread/resume with the conversation's cwd and policy (session/thread-link.ts), turn/start for a
 * turn and the wire of each turn (session/thread-turns.ts), turn/steer with expectedTurnId for
 * every message sent mid-turn (session/steers.ts), approvals as options (session/approvals.ts),
 * turn/interrupt for a stop, and the thread id saved after every turn. Attribution comes from the
 * client id codex echoes on each userMessage item, so every result names the inputs it answers.
 *
 * Ordering: notifications, server requests, the server's exit and every public call run inside the
 * turn lock (synchronous sections only); the awaits of a turn's start happen outside it and check,
 * back inside, that the turn is still the current one.
 */
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
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
import { type CodexLaunch, DEFAULT_INTERRUPT_GRACE_MS, DEFAULT_KILL_GRACE_MS } from './launch.js';
import { CodexServers } from './server/servers.js';
import type { CodexTurn } from './session/codex-turn.js';
import { RAN_AS_TURN_WHY } from './session/steers.js';
import { ThreadLink } from './session/thread-link.js';
import { ThreadTurns } from './session/thread-turns.js';

export { HELD_NOTE } from './session/thread-turns.js';

export class CodexSession implements AgentSession {
  readonly backend = 'codex' as const;
  /** What this backend can do, known before a session exists (a node reports it for its projects). */
  static readonly CAPABILITIES: Capabilities = { steer: 'native', interrupt: true, resume: true };
  readonly capabilities: Capabilities = CodexSession.CAPABILITIES;
  readonly conversationId: string;

  private readonly launch: CodexLaunch;
  private readonly log: Logger;
  private readonly lock = new TurnLock();
  private readonly servers: CodexServers;
  /** The session started its own app-server pool (no shared one was given): it stops it with itself. */
  private readonly ownServers: boolean;
  private readonly link: ThreadLink;
  private readonly turns: ThreadTurns;
  private readonly turnListeners = new Set<(t: Turn) => void>();
  private stopped = false;

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
        notification: (m, p) => this.lock.run(() => this.turns.notification(m, p)),
        request: (id, m, p) => this.lock.run(() => this.turns.request(id, m, p)),
        exit: (info, why) => this.lock.run(() => this.turns.serverExit(info, why)),
      },
      onThreadId: (id) => this.persist(id),
    });
    this.turns = new ThreadTurns({
      launch,
      log: this.log,
      lock: this.lock,
      link: this.link,
      stopped: () => this.stopped,
      onTurn: (turn) => {
        for (const l of this.turnListeners) l(turn);
      },
      persist: (id) => this.persist(id),
      onTimeout: () => void this.interrupt(),
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
    if (this.turns.inFlight()) return 'busy';
    return this.turns.crashed ? 'dead' : 'idle';
  }

  lastActiveAt(): number {
    return this.turns.lastActive;
  }

  steeredCount(): number {
    return this.turns.steers.steered();
  }

  currentTurn(): Turn | undefined {
    return this.turns.current;
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
      if (this.turns.inFlight())
        throw new RudderError('AGENT_BUSY', undefined, { conversationId: this.conversationId });
      return this.turns.begin(input.inputs, input.turnId);
    });
  }

  steer(input: UserInput): SteerPromise {
    let settle!: { resolve: (r: SteerResult) => void; reject: (e: RudderError) => void };
    const outcome = new Promise<SteerResult>((resolve, reject) => (settle = { resolve, reject }));
    const immediate = this.lock.run((): SteerResult | undefined => {
      if (this.stopped) return { outcome: 'process-dead' };
      const turn = this.turns.current;
      if (turn) {
        this.turns.steers.add(input, turn, settle);
        return undefined;
      }
      // Steers put back by the last turn start the next one: this one goes with them, after them.
      if (this.turns.steers.waiting() > 0) {
        this.turns.steers.later(input, settle);
        return undefined;
      }
      if (!this.link.server()) return { outcome: 'process-dead' };
      return { outcome: 'ran-as-turn', turn: this.turns.begin([input]), why: RAN_AS_TURN_WHY };
    });
    if (immediate) return steerPromise(Promise.resolve(immediate), immediate.outcome !== 'process-dead');
    return steerPromise(outcome, true);
  }

  /**
   * turn/interrupt, then the commands the turn started are ended (codex leaves them running):
   * resolves when the turn is over and they are gone.
   */
  async interrupt(opts: { cancelQueued?: boolean } = {}): Promise<void> {
    const older = new Set(this.turns.earlierCommands);
    const turn = this.lock.run(() => {
      const t = this.turns.current;
      if (!t) {
        if (opts.cancelQueued) this.turns.steers.dropAll('AGENT_STOPPED', 'The message was withdrawn by a stop.');
        return undefined;
      }
      if (opts.cancelQueued) t.cancelQueued = true;
      this.turns.interrupt(t);
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
    return this.lock.run(() => this.turns.approvals.answer(requestId, answer));
  }

  /**
   * Ends the turn, every command of the thread and this conversation's use of the app-server; the
   * thread stays resumable.
   */
  async stop(reason: string): Promise<void> {
    this.lock.run(() => {
      if (this.stopped) return;
      this.stopped = true;
      const turn = this.turns.current;
      if (turn) {
        this.turns.interrupt(turn);
        this.turns.finish(turn);
        this.turns.steers.turnEnded(turn, { cancel: true });
        turn.fail(
          new RudderError('AGENT_STOPPED', `Stopped: ${reason}.`, {
            conversationId: this.conversationId,
            unanswered: turn.inputIds(),
          }),
        );
      }
      this.turns.steers.dropAll('AGENT_STOPPED', `Stopped: ${reason}.`);
      this.turns.approvals.dropFor(undefined);
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

  /**
   * Codex did not end the turn in time: a server of the session's own is killed (as Claude's
   * process is); a shared one serves others, so Rudder ends the turn itself.
   */
  private async interruptUnconfirmed(turn: CodexTurn, grace: number): Promise<void> {
    const server = this.link.server();
    this.log.warn({ graceMs: grace, shared: !this.ownServers }, 'interrupt: codex did not end the turn in time');
    if (this.ownServers && server) {
      await server.kill(`interrupt: no turn/completed within ${grace} ms`, this.killGraceMs());
      return;
    }
    this.lock.run(() => this.turns.abandon(turn));
  }

  private persist(threadId: string): void {
    try {
      this.launch.onSessionId?.(threadId);
    } catch (err) {
      this.log.error({ err }, 'persisting the thread id failed');
    }
  }
}
