/**
 * A conversation on an ACP agent (Gemini, Qwen, Claude's adapter, codex-acp, Copilot, or any
 * command that speaks ACP over stdio): a session in a process of its own or in one shared by the
 * conversations of its directory (session-link.ts, processes.ts), one
 * `session/prompt` per turn with the inputs wrapped as external content, the turn's updates as
 * TurnEvents (updates.ts), permission requests as options (permissions.ts), `session/cancel` for a
 * stop, and the session id saved after every turn.
 *
 * Mid-turn messages: before the prompt is sent they join it; after, an agent that offers steering
 * (`_session/steering`, Claude's adapter 0.101) gets them there, and only its `injected` counts as
 * steered; `promptRequired` (its turn had just ended) makes them the next turn. Without steering
 * nothing is written (capability steer 'none'): a second session/prompt is never sent while one runs.
 *
 * Ordering: updates, requests from the agent, the process's exit and every public call run inside
 * the turn lock (synchronous sections); the awaits of a turn (open, prompt) happen outside it and
 * check, back inside, that the turn is still the current one.
 */
import { RudderError } from '../../errors.js';
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
import { AcpTurn } from './acp-turn.js';
import type { AcpConnection } from './connection.js';
import {
  type AcpLaunch,
  DEFAULT_INTERRUPT_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_TURN_TIMEOUT_MS,
} from './launch.js';
import { type OutcomeContext, promptOutcome, requestError } from './outcome.js';
import { PermissionRequests } from './permissions.js';
import {
  type PromptResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  STEERING_METHOD,
  type SteeringResponse,
} from './protocol.js';
import { SessionLink } from './session-link.js';
import { SessionShell } from './session-shell.js';
import { endTurnTools } from './turn-tools.js';

/** Why a message sent mid-turn was not written, for the lane's record. */
export const NO_STEERING = 'this agent cannot take a message mid-turn (it offers no steering)';

interface Settle {
  resolve: (r: SteerResult) => void;
  reject: (e: RudderError) => void;
}

export class AcpSession implements AgentSession {
  readonly backend = 'acp' as const;
  readonly conversationId: string;
  private readonly shell = new SessionShell<AcpTurn>();
  private readonly lock = new TurnLock();
  private readonly log: Logger;
  private readonly link: SessionLink;
  private readonly permissions = new PermissionRequests();
  /** The inputs of a prompt not sent yet, per turn (messages sent meanwhile join them). */
  private readonly unsent = new WeakMap<AcpTurn, UserInput[]>();
  /** Messages that start the next turn once the running one ends (the agent answered promptRequired). */
  private readonly nextTurn: Array<{ input: UserInput; settle: Settle }> = [];
  /** The last prompt's answer, until it comes: a new prompt is never sent while one runs, even an abandoned one. */
  private outstanding: Promise<unknown> | undefined;
  /** The session's cumulative cost as this process last reported it. */
  private cost: number | undefined;
  private crashed = false;
  private stopped = false;

  constructor(private readonly launch: AcpLaunch) {
    this.conversationId = launch.conversationId;
    this.log = launch.logger.child({ conversationId: launch.conversationId, backend: this.backend });
    this.link = new SessionLink(launch, this.log, {
      update: (u) => this.lock.run(() => this.onUpdate(u)),
      permission: (p) => this.lock.run(() => this.onPermission(p)),
      exit: (conn, info) => this.lock.run(() => this.onExit(conn, info)),
    });
  }

  /** Steering as the agent offers it (its preset's expectation until it first ran). */
  get capabilities(): Capabilities {
    return { steer: this.link.steering() ? 'native' : 'none', interrupt: true, resume: true };
  }

  sessionId(): string | undefined {
    return this.link.sessionId;
  }

  pid(): number | undefined {
    return this.link.connection()?.pid;
  }

  state(): SessionState {
    if (this.stopped) return 'stopped';
    if (this.shell.current() || this.nextTurn.length) return 'busy';
    return this.crashed ? 'dead' : 'idle';
  }

  lastActiveAt(): number {
    return this.shell.lastActiveAt();
  }

  steeredCount(): number {
    return this.shell.steeredCount();
  }

  currentTurn(): Turn | undefined {
    return this.shell.current();
  }

  onTurn(listener: (turn: Turn) => void): () => void {
    return this.shell.onTurn(listener);
  }

  /** Recent stderr of the agent, for status and error reports. */
  stderrTail(): string[] {
    return this.link.connection()?.stderrTail() ?? [];
  }

  startTurn(input: TurnInput): Turn {
    return this.lock.run(() => {
      if (this.stopped) throw new RudderError('AGENT_STOPPED', undefined, { conversationId: this.conversationId });
      if (this.shell.current() || this.nextTurn.length)
        throw new RudderError('AGENT_BUSY', undefined, { conversationId: this.conversationId });
      return this.begin(input.inputs, input.turnId);
    });
  }

  steer(input: UserInput): SteerPromise {
    let settle!: Settle;
    const outcome = new Promise<SteerResult>((resolve, reject) => (settle = { resolve, reject }));
    const now = this.lock.run((): SteerResult | { reason: string } | undefined => {
      if (this.stopped) return { outcome: 'process-dead' };
      const turn = this.shell.current();
      if (!turn) {
        if (this.nextTurn.length) return void this.nextTurn.push({ input, settle });
        return { outcome: 'ran-as-turn', turn: this.begin([input]) };
      }
      const unsent = this.unsent.get(turn);
      if (unsent) {
        // The prompt is not sent yet: the message goes with it, in the same turn.
        unsent.push(input);
        turn.addInputs([input.id]);
        turn.steered++;
        this.shell.steered();
        turn.emit({ type: 'steer-absorbed', inputId: input.id });
        return { outcome: 'steered', turn };
      }
      if (!this.link.steering()) return { reason: NO_STEERING };
      this.sendSteer(turn, input, settle);
      return undefined;
    });
    if (now === undefined) return steerPromise(outcome, true);
    if ('reason' in now) return steerPromise(Promise.resolve({ outcome: 'process-dead' }), false, now.reason);
    return steerPromise(Promise.resolve(now), now.outcome !== 'process-dead');
  }

  /**
   * session/cancel, and every waiting permission request answered `cancelled`; resolves when the turn
   * is over. An agent that does not end it within the grace has its process stopped: the turn ends
   * as interrupted and the next one loads the session in a new process.
   */
  async interrupt(opts: { cancelQueued?: boolean } = {}): Promise<void> {
    const turn = this.lock.run(() => {
      if (opts.cancelQueued) this.dropNextTurn('The message was withdrawn by a stop.');
      const t = this.shell.current();
      if (t) this.cancel(t);
      return t;
    });
    if (!turn) return;
    const grace = this.launch.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS;
    const settled = turn.result.then(
      () => true,
      () => true,
    );
    const inTime = await Promise.race([settled, new Promise<false>((r) => setTimeout(() => r(false), grace).unref())]);
    const conn = this.link.connection();
    if (inTime) {
      const tools = { sessionId: this.link.sessionId, shared: this.link.shared(), sinceMs: turn.startedAt };
      const ended = conn ? await endTurnTools({ agentPid: conn.pid, ...tools }, this.killGraceMs()) : [];
      if (ended.length) this.log.info({ pids: ended }, 'interrupt: ended the commands the turn had left running');
      return;
    }
    this.log.warn({ graceMs: grace, shared: this.link.shared() }, 'interrupt: the agent did not end the turn in time');
    // A process other conversations use is not killed: Rudder ends the turn; the next prompt waits for its answer.
    if (this.link.shared()) this.lock.run(() => this.abandon(turn, 'cancel_unconfirmed'));
    else await conn?.kill(`interrupt: no answer within ${grace} ms`, this.killGraceMs());
    await settled;
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    return this.lock.run(() => this.permissions.answer(requestId, answer));
  }

  /** Ends the turn and the process; the session stays loadable by a later process. */
  async stop(reason: string): Promise<void> {
    const conn = this.lock.run(() => {
      if (this.stopped) return undefined;
      this.stopped = true;
      const turn = this.shell.current();
      if (turn) {
        this.cancel(turn);
        this.end(turn);
        turn.fail(
          new RudderError('AGENT_STOPPED', `Stopped: ${reason}.`, {
            conversationId: this.conversationId,
            unanswered: turn.inputIds(),
          }),
        );
      }
      this.dropNextTurn(`Stopped: ${reason}.`);
      return this.link.connection();
    });
    if (conn) await this.link.close(reason);
  }

  private killGraceMs(): number {
    return this.launch.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  private context(): OutcomeContext {
    const c = this.launch.command;
    return {
      conversationId: this.conversationId,
      sessionId: this.link.sessionId,
      label: typeof c === 'function' ? (this.launch.preset?.label ?? 'The agent') : c.label,
    };
  }

  /** Starts a turn now (nothing runs): announced, timed, and run outside the lock. */
  private begin(inputs: UserInput[], turnId?: string): AcpTurn {
    const turn = new AcpTurn(
      inputs.map((i) => i.id),
      turnId,
    );
    this.unsent.set(turn, [...inputs]);
    this.crashed = false;
    const timeout = this.launch.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
    turn.timer = setTimeout(() => {
      turn.timedOut = true;
      this.log.warn({ timeoutMs: timeout }, 'turn timeout: stopping the turn');
      void this.interrupt();
    }, timeout);
    turn.timer.unref();
    this.shell.began(turn);
    void this.run(turn);
    return turn;
  }

  /** Opens the session (starting the agent, loading the session), then the prompt. Runs outside the lock. */
  private async run(turn: AcpTurn): Promise<void> {
    // Called inside the lock: everything from here runs after it, so a failure can settle the turn.
    await Promise.resolve();
    let conn: AcpConnection | undefined;
    try {
      const opened = await this.link.open();
      conn = opened.conn;
      // A stop Rudder gave up waiting on left the agent's answer to the last prompt outstanding.
      await this.outstanding;
      const prompt = this.lock.run(() => {
        if (this.shell.current() !== turn) return undefined;
        if (opened.notice) turn.emit({ type: 'status', message: opened.notice, notify: true });
        // Stopped while the agent started: nothing reached it.
        if (turn.cancelRequested) return void this.abandon(turn, 'interrupted_before_start');
        const inputs = this.unsent.get(turn) ?? [];
        this.unsent.delete(turn);
        turn.prompted = true;
        turn.costAtStart = this.cost;
        return agentText(inputs);
      });
      if (prompt === undefined) return;
      const answer = conn.request<PromptResponse>(
        'session/prompt',
        { sessionId: opened.sessionId, prompt: [{ type: 'text', text: prompt }] },
        null,
      );
      const settled = answer.then(
        () => undefined,
        () => undefined,
      );
      this.outstanding = settled;
      void settled.then(() => {
        if (this.outstanding === settled) this.outstanding = undefined;
      });
      const res = await answer;
      this.lock.run(() => this.complete(turn, res));
    } catch (err) {
      this.lock.run(() => this.failed(turn, conn, err));
    }
  }

  private complete(turn: AcpTurn, res: PromptResponse): void {
    if (turn.isSettled()) return;
    for (const e of turn.mapper.finish()) turn.emit(e);
    this.cost = turn.mapper.costUsd ?? this.cost;
    const outcome = promptOutcome(res, turn, this.context(), this.permissions.refused);
    this.end(turn);
    if (this.link.sessionId) this.persist(this.link.sessionId);
    if ('error' in outcome) turn.fail(outcome.error);
    else {
      if (outcome.notice) turn.emit({ type: 'status', message: outcome.notice, notify: true });
      turn.succeed(outcome.ok);
    }
    this.startNextTurn();
  }

  private failed(turn: AcpTurn, conn: AcpConnection | undefined, err: unknown): void {
    if (turn.isSettled()) return;
    // The process died under the prompt: its exit settles the turn (it knows whether a stop asked for it).
    if (conn && !conn.alive() && turn.prompted) return;
    const e = requestError(err, this.context(), turn.inputIds());
    this.log.warn({ code: e.code, err: e.message }, 'acp turn failed');
    this.end(turn);
    turn.fail(e);
    this.failNextTurn(e);
  }

  /** Ends a turn Rudder stopped before the agent had it, or whose process a stop had to kill. */
  private abandon(turn: AcpTurn, terminalReason: string): void {
    if (turn.isSettled()) return;
    for (const e of turn.mapper.finish()) turn.emit(e);
    this.end(turn);
    if (turn.timedOut) {
      const context = { conversationId: this.conversationId, unanswered: turn.inputIds() };
      turn.fail(new RudderError('AGENT_TURN_TIMEOUT', undefined, context));
      return this.startNextTurn();
    }
    turn.succeed({
      text: turn.mapper.texts.at(-1) ?? '',
      sessionId: this.link.sessionId,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
      costUsd: undefined,
      durationMs: Date.now() - turn.startedAt,
      numTurns: 0,
      terminalReason,
      isError: false,
      interrupted: true,
      inputIds: turn.inputIds(),
      steered: turn.steered,
    });
    this.startNextTurn();
  }

  /** Turn bookkeeping: the timer, the permission requests still open, the shell. The caller settles it. */
  private end(turn: AcpTurn): void {
    clearTimeout(turn.timer);
    this.unsent.delete(turn);
    this.permissions.cancelAll();
    this.permissions.refused = false;
    this.shell.ended(turn);
  }

  /** Asks the agent to stop the turn (a prompt not sent yet is never sent). */
  private cancel(turn: AcpTurn): void {
    turn.cancelRequested = true;
    this.permissions.cancelAll();
    const conn = this.link.connection();
    if (turn.prompted && conn && this.link.sessionId) conn.notify('session/cancel', { sessionId: this.link.sessionId });
  }

  private onUpdate(update: unknown): void {
    const turn = this.shell.current();
    // Between turns (a late tool update, an agent's own notices) nothing is emitted.
    if (!turn?.prompted || turn.isSettled()) return;
    for (const e of turn.mapper.map(update)) turn.emit(e);
  }

  private onPermission(params: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    const turn = this.shell.current();
    if (!turn || turn.cancelRequested || turn.isSettled())
      return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    const tool = turn.mapper.describeTool(params.toolCall);
    return this.permissions.open(params, tool, (request) => turn.emit({ type: 'permission', request }));
  }

  /** The process is gone: the running turn ends (interrupted, when a stop killed it; failed otherwise). */
  private onExit(conn: AcpConnection, info: ExitInfo): void {
    if (this.link.connection() && this.link.connection() !== conn) return;
    this.cost = undefined;
    const turn = this.shell.current();
    this.permissions.cancelAll();
    if (!turn) return;
    if (turn.cancelRequested && info.reason?.startsWith('interrupt')) {
      this.abandon(turn, 'cancelled');
      return;
    }
    if (this.stopped || !turn.prompted) return;
    this.crashed = !info.reason;
    const e = conn.exitError({ unanswered: turn.inputIds(), exitCode: info.code, signal: info.signal });
    this.end(turn);
    turn.fail(e);
    this.failNextTurn(e);
  }

  /** `_session/steering` for a message sent while the prompt runs. */
  private sendSteer(turn: AcpTurn, input: UserInput, settle: Settle): void {
    const conn = this.link.connection();
    const sessionId = this.link.sessionId;
    if (!conn || !sessionId) return settle.resolve({ outcome: 'process-dead' });
    conn
      .request<SteeringResponse>(STEERING_METHOD, {
        sessionId,
        prompt: [{ type: 'text', text: agentText([input]) }],
        _meta: { steering: { idleBehavior: 'promptRequired' } },
      })
      .then(
        (res) => this.lock.run(() => this.steered(turn, input, settle, res)),
        (err: Error) =>
          this.lock.run(() => {
            this.log.warn({ err: err.message }, 'acp: steering failed; the message becomes the next turn');
            this.later(input, settle);
          }),
      );
  }

  private steered(turn: AcpTurn, input: UserInput, settle: Settle, res: SteeringResponse): void {
    if (res?.outcome === 'injected' || res?.outcome === 'startedNewTurn') {
      if (res.outcome === 'startedNewTurn') this.log.warn('acp: the agent started a turn of its own for a steer');
      turn.addInputs([input.id]);
      turn.steered++;
      this.shell.steered();
      turn.emit({ type: 'steer-absorbed', inputId: input.id });
      settle.resolve({ outcome: 'steered', turn });
      return;
    }
    // promptRequired: the agent's turn had ended; the message is the next turn.
    this.later(input, settle);
  }

  /** The message starts the next turn: now when none runs, else when the running one ends. */
  private later(input: UserInput, settle: Settle): void {
    if (this.stopped) return settle.resolve({ outcome: 'process-dead' });
    this.nextTurn.push({ input, settle });
    if (!this.shell.current()) this.startNextTurn();
  }

  private startNextTurn(): void {
    if (this.stopped || this.shell.current() || !this.nextTurn.length) return;
    const waiting = this.nextTurn.splice(0);
    const turn = this.begin(waiting.map((w) => w.input));
    for (const w of waiting) w.settle.resolve({ outcome: 'ran-as-turn', turn, why: 'the agent had ended its turn' });
  }

  private failNextTurn(e: RudderError): void {
    for (const w of this.nextTurn.splice(0)) w.settle.reject(e);
  }

  private dropNextTurn(detail: string): void {
    for (const w of this.nextTurn.splice(0))
      w.settle.reject(new RudderError('AGENT_STOPPED', detail, { conversationId: this.conversationId }));
  }

  private persist(sessionId: string): void {
    try {
      this.launch.onSessionId?.(sessionId);
    } catch (err) {
      this.log.error({ err }, 'persisting the session id failed');
    }
  }
}
