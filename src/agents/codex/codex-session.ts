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
import { AgentSessionBase } from '../common/session-base.js';
import type { Capabilities, PermissionAnswer, SteerPromise, SteerResult, UserInput } from '../session.js';
import { PLAIN_CAPABILITIES, steerNow, steerPromise } from '../session.js';
import type { CodexLaunch } from './launch.js';
import { CodexServers } from './server/servers.js';
import type { CodexTurn, SteerMsg } from './session/codex-turn.js';
import { RAN_AS_TURN_WHY } from './session/steers.js';
import { ThreadLink } from './session/thread-link.js';
import { ThreadTurns } from './session/thread-turns.js';

export { HELD_NOTE } from './session/thread-turns.js';

export class CodexSession extends AgentSessionBase<CodexTurn> {
  /** What this backend can do, known before a session exists (the agent table and a node's heartbeat say it). */
  static readonly CAPABILITIES: Capabilities = { ...PLAIN_CAPABILITIES, steer: 'native' };

  private readonly servers: CodexServers;
  /** The session started its own app-server pool (no shared one was given): it stops it with itself. */
  private readonly ownServers: boolean;
  private readonly link: ThreadLink;
  private readonly threadTurns: ThreadTurns;

  constructor(launch: CodexLaunch) {
    super(launch, 'codex', CodexSession.CAPABILITIES);
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
        notification: (m, p) => this.lock.run(() => this.threadTurns.notification(m, p)),
        request: (id, m, p) => this.lock.run(() => this.threadTurns.request(id, m, p)),
        exit: (info, why) => this.lock.run(() => this.threadTurns.serverExit(info, why)),
      },
      onThreadId: (id) => this.saveSessionId(id, 'the thread id'),
    });
    this.threadTurns = new ThreadTurns({
      launch,
      log: this.log,
      lock: this.lock,
      link: this.link,
      turns: this.turns,
      stopped: () => this.stopped,
      persist: (id) => this.saveSessionId(id, 'the thread id'),
      startTimer: (turn) => this.startTurnTimer(turn, () => void this.interrupt()),
    });
  }

  sessionId(): string | undefined {
    return this.link.threadId;
  }

  /** The app-server's pid (shared with the other conversations on it). */
  pid(): number | undefined {
    return this.link.server()?.pid;
  }

  protected inFlight(): boolean {
    return this.threadTurns.inFlight();
  }

  protected override dead(): boolean {
    return this.threadTurns.crashed;
  }

  /** Recent stderr of the app-server, for `rudder status` and error reports. */
  stderrTail(): string[] {
    return this.link.server()?.stderrTail() ?? [];
  }

  protected beginTurn(inputs: UserInput[], turnId?: string): CodexTurn {
    return this.threadTurns.begin(inputs, turnId);
  }

  steer(input: UserInput): SteerPromise {
    let settle!: SteerMsg['settle'];
    const outcome = new Promise<SteerResult>((resolve, reject) => (settle = { resolve, reject }));
    const immediate = this.lock.run((): SteerResult | undefined => {
      if (this.stopped) return { outcome: 'process-dead' };
      const steers = this.threadTurns.steers;
      const turn = this.turns.current;
      if (turn) {
        steers.add(input, turn, settle);
        return undefined;
      }
      // Steers put back by the last turn start the next one: this one goes with them, after them.
      if (steers.waiting() > 0) {
        steers.later(input, settle);
        return undefined;
      }
      if (!this.link.server()) return { outcome: 'process-dead' };
      return { outcome: 'ran-as-turn', turn: this.beginTurn([input]), why: RAN_AS_TURN_WHY };
    });
    return immediate ? steerNow(immediate) : steerPromise(outcome, true);
  }

  /**
   * turn/interrupt, then the commands the turn started are ended (codex leaves them running):
   * resolves when the turn is over and they are gone.
   */
  async interrupt(opts: { cancelQueued?: boolean } = {}): Promise<void> {
    const older = new Set(this.threadTurns.earlierCommands);
    const turn = this.lock.run(() => {
      const t = this.turns.current;
      if (!t) {
        if (opts.cancelQueued) this.threadTurns.steers.dropAll('AGENT_STOPPED', 'The message was withdrawn by a stop.');
        return undefined;
      }
      if (opts.cancelQueued) t.cancelQueued = true;
      this.threadTurns.interrupt(t);
      return t;
    });
    if (!turn) return;
    await this.graceThen(turn, (graceMs) => this.interruptUnconfirmed(turn, graceMs));
    const server = this.link.server();
    const threadId = this.link.threadId;
    if (server && threadId) {
      const ended = await server.endCommands(threadId, this.killGraceMs, (id) => !older.has(id ?? ''));
      if (ended.length) this.log.info({ pids: ended }, 'interrupt: ended the commands the turn had started');
    }
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    return this.lock.run(() => this.threadTurns.approvals.answer(requestId, answer));
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
        this.threadTurns.interrupt(turn);
        this.threadTurns.finish(turn);
        this.threadTurns.steers.turnEnded(turn, { cancel: true });
        turn.fail(this.failure('AGENT_STOPPED', `Stopped: ${reason}.`, turn.inputIds()));
      }
      this.threadTurns.steers.dropAll('AGENT_STOPPED', `Stopped: ${reason}.`);
      this.threadTurns.approvals.dropFor(undefined);
    });
    const server = this.link.server();
    const threadId = this.link.threadId;
    if (server && threadId) await server.endCommands(threadId, this.killGraceMs);
    await this.link.close(reason);
    if (this.ownServers) await this.servers.stopAll(reason);
  }

  /**
   * Codex did not end the turn in time: a server of the session's own is killed (as Claude's
   * process is); a shared one serves others, so Rudder ends the turn itself.
   */
  private async interruptUnconfirmed(turn: CodexTurn, grace: number): Promise<void> {
    const server = this.link.server();
    this.log.warn({ graceMs: grace, shared: !this.ownServers }, 'interrupt: codex did not end the turn in time');
    if (this.ownServers && server) {
      await server.kill(`interrupt: no turn/completed within ${grace} ms`, this.killGraceMs);
      return;
    }
    this.lock.run(() => this.threadTurns.abandon(turn));
  }
}
