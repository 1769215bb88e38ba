/**
 * A conversation on an ACP agent (Gemini, Qwen, Claude's adapter, codex-acp, Copilot, or any
 * command that speaks ACP over stdio): a session in a process of its own or in one shared by the
 * conversations of its directory (session-link.ts, processes.ts), one `session/prompt` per turn with
 * the inputs wrapped as external content, the turn's updates as TurnEvents (updates.ts), permission
 * requests as options (permissions.ts), `session/cancel` for a stop, and the session id saved after
 * every turn. The shell (the running turn, listeners, state, timeout, grace) is the session base's.
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
import type { ExitInfo } from '../claude/process.js';
import { agentText } from '../common/agent-text.js';
import { AgentSessionBase } from '../common/session-base.js';
import {
  type Capabilities,
  type PermissionAnswer,
  PLAIN_CAPABILITIES,
  type SteerPromise,
  type SteerResult,
  steerPromise,
  type UserInput,
} from '../session.js';
import { AcpTurn } from './acp-turn.js';
import type { AcpConnection } from './connection.js';
import type { AcpLaunch } from './launch.js';
import { type OutcomeContext, promptOutcome, requestError } from './outcome.js';
import { PermissionRequests } from './permissions.js';
import type { AcpPreset } from './presets.js';
import {
  type PromptResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  STEERING_METHOD,
  type SteeringRequest,
  type SteeringResponse,
} from './protocol.js';
import { SessionLink } from './session-link.js';
import { endTurnTools } from './turn-tools.js';

/** Why a message sent mid-turn was not written, for the lane's record. */
export const NO_STEERING = 'this agent cannot take a message mid-turn (it offers no steering)';

interface Settle {
  resolve: (r: SteerResult) => void;
  reject: (e: RudderError) => void;
}

/** What an ACP backend can do before its agent ran: steering as its preset expects it. */
export function acpCapabilities(preset: AcpPreset | undefined, steering = preset?.steering ?? false): Capabilities {
  return { ...PLAIN_CAPABILITIES, steer: steering ? 'native' : 'none' };
}

export class AcpSession extends AgentSessionBase<AcpTurn> {
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

  constructor(private readonly launch: AcpLaunch) {
    const backend = launch.backend ?? (launch.preset ? `acp:${launch.preset.name}` : 'acp');
    super(launch, backend, acpCapabilities(launch.preset));
    this.link = new SessionLink(launch, this.log, {
      update: (u) => this.lock.run(() => this.onUpdate(u)),
      permission: (p) => this.lock.run(() => this.onPermission(p)),
      exit: (conn, info) => this.lock.run(() => this.onExit(conn, info)),
      sessionId: (id) => this.saveSessionId(id),
    });
  }

  /** Steering as the agent declared it at initialize (its preset's expectation until it first ran). */
  override get capabilities(): Capabilities {
    return acpCapabilities(this.launch.preset, this.link.steering());
  }

  sessionId(): string | undefined {
    return this.link.sessionId;
  }

  /** The agent's pid (shared with the other conversations of its directory, where it serves several). */
  pid(): number | undefined {
    return this.link.connection()?.pid;
  }

  /** Recent stderr of the agent, for status and error reports. */
  stderrTail(): string[] {
    return this.link.connection()?.stderrTail() ?? [];
  }

  protected inFlight(): boolean {
    return this.turns.current !== undefined || this.nextTurn.length > 0;
  }

  protected override dead(): boolean {
    return this.crashed;
  }

  protected override context(): Record<string, unknown> {
    const pid = this.pid();
    return { conversationId: this.conversationId, ...(pid ? { pid } : {}) };
  }

  /** Starts a turn now (nothing runs): announced, timed, and run outside the lock. */
  protected beginTurn(inputs: UserInput[], turnId?: string): AcpTurn {
    const turn = new AcpTurn(
      inputs.map((i) => i.id),
      turnId,
    );
    this.unsent.set(turn, [...inputs]);
    this.crashed = false;
    this.startTurnTimer(turn, () => void this.interrupt());
    turn.emit({ type: 'started', inputIds: turn.inputIds() });
    this.turns.open(turn);
    void this.run(turn);
    return turn;
  }

  steer(input: UserInput): SteerPromise {
    let settle!: Settle;
    const outcome = new Promise<SteerResult>((resolve, reject) => (settle = { resolve, reject }));
    const now = this.lock.run((): SteerResult | { reason: string } | undefined => {
      if (this.stopped) return { outcome: 'process-dead' };
      const turn = this.turns.current;
      if (!turn) {
        if (this.nextTurn.length) return void this.nextTurn.push({ input, settle });
        return { outcome: 'ran-as-turn', turn: this.beginTurn([input]) };
      }
      const unsent = this.unsent.get(turn);
      if (unsent) {
        // The prompt is not sent yet: the message goes with it, in the same turn.
        unsent.push(input);
        this.absorbed(turn, input);
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
   * session/cancel, and every waiting permission request answered `cancelled`; resolves when the turn is over and
   * the commands it left running are gone. An agent that does not end it within the grace has its process stopped
   * (the next turn loads the session in a new one); a process other conversations use is not: Rudder ends the turn.
   */
  async interrupt(opts: { cancelQueued?: boolean } = {}): Promise<void> {
    const turn = this.lock.run(() => {
      if (opts.cancelQueued) this.dropNextTurn('The message was withdrawn by a stop.');
      const t = this.turns.current;
      if (t) this.cancel(t);
      return t;
    });
    if (!turn) return;
    await this.graceThen(turn, (graceMs) => this.interruptUnconfirmed(turn, graceMs));
    const conn = this.link.connection();
    if (!conn) return;
    const tools = { agentPid: conn.pid, sessionId: this.link.sessionId, shared: this.link.shared() };
    const ended = await endTurnTools({ ...tools, sinceMs: turn.startedAt }, this.killGraceMs);
    if (ended.length) this.log.info({ pids: ended }, 'interrupt: ended the commands the turn had left running');
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    return this.lock.run(() => this.permissions.answer(requestId, answer));
  }

  /** Ends the turn and this conversation's use of the process; the session stays loadable by a later process. */
  async stop(reason: string): Promise<void> {
    const conn = this.lock.run(() => {
      if (this.stopped) return undefined;
      this.stopped = true;
      const turn = this.turns.current;
      if (turn) {
        this.cancel(turn);
        this.end(turn);
        turn.fail(this.failure('AGENT_STOPPED', `Stopped: ${reason}.`, turn.inputIds()));
      }
      this.dropNextTurn(`Stopped: ${reason}.`);
      return this.link.connection();
    });
    if (conn) await this.link.close(reason);
  }

  /** The agent did not end the turn in time after session/cancel. */
  private async interruptUnconfirmed(turn: AcpTurn, graceMs: number): Promise<void> {
    const shared = this.link.shared();
    this.log.warn({ graceMs, shared }, 'interrupt: the agent did not end the turn in time');
    if (shared) return this.lock.run(() => this.abandon(turn, 'cancel_unconfirmed'));
    await this.link.connection()?.kill(`interrupt: no answer within ${graceMs} ms`, this.killGraceMs);
    await turn.result.catch(() => undefined);
  }

  private outcomeContext(): OutcomeContext {
    return { conversationId: this.conversationId, sessionId: this.link.sessionId, label: this.launch.label };
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
      const prompt = this.lock.run(() => this.promptOf(turn, opened.notice));
      if (prompt === undefined) return;
      const answer = conn.request<PromptResponse>(
        'session/prompt',
        { sessionId: opened.sessionId, prompt: [{ type: 'text', text: prompt }] },
        null,
      );
      this.awaiting(answer);
      const res = await answer;
      this.lock.run(() => this.complete(turn, res));
    } catch (err) {
      this.lock.run(() => this.failed(turn, conn, err));
    }
  }

  /** The prompt's text, the turn marked prompted; undefined when the turn is no longer to run. Inside the lock. */
  private promptOf(turn: AcpTurn, notice: string | undefined): string | undefined {
    if (this.turns.current !== turn) return undefined;
    if (notice) turn.emit({ type: 'status', message: notice, notify: true });
    // Stopped while the agent started: nothing reached it.
    if (turn.interruptRequested) return void this.abandon(turn, 'interrupted_before_start');
    const inputs = this.unsent.get(turn) ?? [];
    this.unsent.delete(turn);
    turn.prompted = true;
    turn.costAtStart = this.cost;
    return agentText(inputs);
  }

  /** Keeps the prompt's answer outstanding until it comes, whatever becomes of the turn. */
  private awaiting(answer: Promise<unknown>): void {
    const settled = answer.then(
      () => undefined,
      () => undefined,
    );
    this.outstanding = settled;
    void settled.then(() => {
      if (this.outstanding === settled) this.outstanding = undefined;
    });
  }

  private complete(turn: AcpTurn, res: PromptResponse): void {
    if (turn.isSettled()) return;
    for (const e of turn.mapper.finish()) turn.emit(e);
    this.cost = turn.mapper.costUsd ?? this.cost;
    const outcome = promptOutcome(res, turn, this.outcomeContext(), this.permissions.refused);
    this.end(turn);
    if (this.link.sessionId) this.saveSessionId(this.link.sessionId);
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
    const e = requestError(err, this.outcomeContext(), turn.inputIds());
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
      turn.fail(this.failure('AGENT_TURN_TIMEOUT', '', turn.inputIds()));
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

  /** Turn bookkeeping: the timer, the permission requests still open, the slot. The caller settles it. */
  private end(turn: AcpTurn): void {
    clearTimeout(turn.timer);
    this.unsent.delete(turn);
    this.permissions.cancelAll();
    this.permissions.refused = false;
    this.turns.close(turn);
  }

  /** Asks the agent to stop the turn (a prompt not sent yet is never sent). */
  private cancel(turn: AcpTurn): void {
    turn.interruptRequested = true;
    this.permissions.cancelAll();
    const conn = this.link.connection();
    if (turn.prompted && conn && this.link.sessionId) conn.notify('session/cancel', { sessionId: this.link.sessionId });
  }

  private onUpdate(update: unknown): void {
    const turn = this.turns.current;
    // Between turns (a late tool update, an agent's own notices) nothing is emitted.
    if (!turn?.prompted || turn.isSettled()) return;
    this.turns.touch();
    for (const e of turn.mapper.map(update)) turn.emit(e);
  }

  private onPermission(params: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    const turn = this.turns.current;
    if (!turn || turn.interruptRequested || turn.isSettled())
      return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    const tool = turn.mapper.describeTool(params.toolCall);
    return this.permissions.open(params, tool, (request) => turn.emit({ type: 'permission', request }));
  }

  /** The process is gone: the running turn ends (interrupted, when a stop killed it; failed otherwise). */
  private onExit(conn: AcpConnection, info: ExitInfo): void {
    if (this.link.connection() && this.link.connection() !== conn) return;
    this.cost = undefined;
    const turn = this.turns.current;
    this.permissions.cancelAll();
    if (!turn) return;
    if (turn.interruptRequested && info.reason?.startsWith('interrupt')) return this.abandon(turn, 'cancelled');
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
      } satisfies SteeringRequest)
      .then(
        (res) => this.lock.run(() => this.steered(turn, input, settle, res)),
        (err: Error) =>
          this.lock.run(() => {
            this.log.warn({ err: err.message }, 'acp: steering failed; the message becomes the next turn');
            this.later(input, settle);
          }),
      );
  }

  /** The agent's answer to a steer: only `injected` is steered into this turn. */
  private steered(turn: AcpTurn, input: UserInput, settle: Settle, res: SteeringResponse): void {
    if (res?.outcome === 'injected') {
      this.absorbed(turn, input);
      return settle.resolve({ outcome: 'steered', turn });
    }
    if (res?.outcome === 'startedNewTurn' && !turn.isSettled()) {
      // The agent had ended its turn and began one of its own with the text: it has it, so it is never sent again;
      // its answer comes with this prompt's.
      this.log.warn('acp: the agent started a turn of its own for a steer');
      turn.addInputs([input.id]);
      return settle.resolve({ outcome: 'ran-as-turn', turn, why: 'the agent had ended its turn and began another' });
    }
    // promptRequired: the agent's turn had ended; the message is the next turn.
    this.later(input, settle);
  }

  /** A message taken into the running turn. */
  private absorbed(turn: AcpTurn, input: UserInput): void {
    turn.addInputs([input.id]);
    turn.steered++;
    this.turns.steered(1);
    turn.emit({ type: 'steer-absorbed', inputId: input.id });
  }

  /** The message starts the next turn: now when none runs, else when the running one ends. */
  private later(input: UserInput, settle: Settle): void {
    if (this.stopped) return settle.resolve({ outcome: 'process-dead' });
    this.nextTurn.push({ input, settle });
    if (!this.turns.current) this.startNextTurn();
  }

  private startNextTurn(): void {
    if (this.stopped || this.turns.current || !this.nextTurn.length) return;
    const waiting = this.nextTurn.splice(0);
    const turn = this.beginTurn(waiting.map((w) => w.input));
    for (const w of waiting) w.settle.resolve({ outcome: 'ran-as-turn', turn, why: 'the agent had ended its turn' });
  }

  private failNextTurn(e: RudderError): void {
    for (const w of this.nextTurn.splice(0)) w.settle.reject(e);
  }

  private dropNextTurn(detail: string): void {
    for (const w of this.nextTurn.splice(0))
      w.settle.reject(new RudderError('AGENT_STOPPED', detail, { conversationId: this.conversationId }));
  }
}
