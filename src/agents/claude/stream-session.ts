/**
 * The persistent session: one `claude -p --input-format stream-json` process per conversation,
 * kept alive between turns. A message written while a turn runs is folded in by the CLI at the
 * next tool boundary (steered), or runs as the next turn when the model is streaming plain text.
 * Every result is attributed to the inputs it answers by the client uuid of each stdin message
 * (result.user_message_uuids, command_lifecycle and --replay-user-messages), so Rudder is never
 * "one turn behind".
 */
import { randomUUID } from 'node:crypto';
import { asRudderError, RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
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
import { streamArgs } from './args.js';
import { describeExit } from './exit.js';
import { classifyResult, interruptedResult } from './frames-to-events.js';
import {
  type ClaudeLaunch,
  DEFAULT_INTERRUPT_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_TURN_TIMEOUT_MS,
} from './launch.js';
import { PermissionRelay } from './permission-relay.js';
import { AgentProcess, type ExitInfo } from './process.js';
import {
  encodeFrame,
  interruptRequest,
  type OutputFrame,
  type ResultFrame,
  type ResultModelUsage,
  userMessage,
} from './protocol/index.js';
import { parseLine } from './protocol/parse.js';
import { StreamTurn, type WireMessage } from './stream-turn.js';
import { WireLedger } from './wire-ledger.js';

/** How long an idle process may take to exit after its stdin closed before it is killed. */
const IDLE_EXIT_WAIT_MS = 2_000;

export class ClaudeStreamSession implements AgentSession {
  readonly backend = 'claude-stream' as const;
  /** What this backend can do, known before a session exists (a node reports it for its projects). */
  static readonly CAPABILITIES: Capabilities = { steer: 'tool-boundary', interrupt: true, resume: true };
  readonly capabilities: Capabilities = ClaudeStreamSession.CAPABILITIES;
  readonly conversationId: string;

  private readonly launch: ClaudeLaunch;
  private readonly log: Logger;
  private readonly lock = new TurnLock();
  private proc: AgentProcess | undefined;
  /** Processes let go of that are still exiting; stop() waits for them too. */
  private readonly retiring = new Set<AgentProcess>();
  private current: StreamTurn | undefined;
  /** Messages written and not yet answered, withdrawn or lost, and which turn took each in. */
  private readonly wire: WireLedger;
  private readonly permissions = new PermissionRelay();
  private readonly turnListeners = new Set<(t: Turn) => void>();
  private sid: string | undefined;
  private stopped = false;
  private crashed = false;
  private lastActive = Date.now();
  /** The cumulative cost the current process has reported so far. */
  private costBase = 0;
  /** The process's cumulative modelUsage at its last result: a turn's share is the difference. */
  private modelsBase: Record<string, ResultModelUsage> = {};

  constructor(launch: ClaudeLaunch) {
    this.launch = launch;
    this.conversationId = launch.conversationId;
    this.log = launch.logger.child({ conversationId: launch.conversationId, backend: this.backend });
    this.sid = launch.sessionId;
    this.wire = new WireLedger({
      conversationId: this.conversationId,
      current: () => this.current,
      newTurn: () => this.newTurnLocked([]),
    });
  }

  sessionId(): string | undefined {
    return this.sid;
  }

  pid(): number | undefined {
    return this.proc?.alive() ? this.proc.pid : undefined;
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
    return this.wire.steered();
  }

  currentTurn(): Turn | undefined {
    return this.current;
  }

  onTurn(listener: (turn: Turn) => void): () => void {
    this.turnListeners.add(listener);
    return () => void this.turnListeners.delete(listener);
  }

  /** Recent stderr of the live process, for `rudder status` and error reports. */
  stderrTail(): string[] {
    return this.proc?.stderrTail() ?? [];
  }

  startTurn(input: TurnInput): Turn {
    return this.lock.run(() => {
      if (this.stopped) throw new RudderError('AGENT_STOPPED', undefined, { conversationId: this.conversationId });
      if (this.inFlight()) throw new RudderError('AGENT_BUSY', undefined, { conversationId: this.conversationId });
      return this.beginTurnLocked(input.inputs, input.turnId);
    });
  }

  steer(input: UserInput): SteerPromise {
    const immediate = this.lock.run((): SteerResult | WireMessage => {
      const proc = this.proc;
      if (this.stopped || !proc?.alive()) return { outcome: 'process-dead' };
      if (!this.inFlight()) return { outcome: 'ran-as-turn', turn: this.beginTurnLocked([input]) };
      try {
        return this.writeLocked(proc, [input], 'steer', this.current);
      } catch {
        return { outcome: 'process-dead' };
      }
    });
    if ('outcome' in immediate) return steerPromise(Promise.resolve(immediate), immediate.outcome !== 'process-dead');
    const outcome = new Promise<SteerResult>((resolve, reject) => (immediate.settle = { resolve, reject }));
    return steerPromise(outcome, true);
  }

  async interrupt(opts: { cancelQueued?: boolean } = {}): Promise<void> {
    const { proc, turn } = this.lock.run(() => ({ proc: this.proc, turn: this.current }));
    if (!proc?.alive() || (!turn && this.wire.size() === 0)) return;
    if (turn) turn.interruptRequested = true;
    try {
      proc.write(encodeFrame(interruptRequest(randomUUID(), !!opts.cancelQueued)));
    } catch {
      // The process is going away; its exit settles the turn.
    }
    const grace = this.launch.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS;
    const settled = turn
      ? turn.result.then(
          () => true,
          () => true,
        )
      : Promise.resolve(true);
    const inTime = await Promise.race([settled, new Promise<false>((r) => setTimeout(() => r(false), grace).unref())]);
    if (!inTime && proc.alive()) {
      this.log.warn(
        { pid: proc.pid, graceMs: grace },
        'interrupt: no result in time, killing the process; the next turn resumes the session',
      );
      await proc.kill(`interrupt: no result within ${grace} ms`, this.killGraceMs());
    }
  }

  private killGraceMs(): number {
    return this.launch.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    return this.proc?.alive() ? this.permissions.answer(this.proc, requestId, answer) : false;
  }

  async stop(reason: string): Promise<void> {
    this.stopped = true;
    const grace = this.killGraceMs();
    const leaving = [...this.retiring].map((p) => p.kill(reason, grace));
    const proc = this.proc;
    if (proc?.alive()) {
      // Idle: end of input lets the CLI exit cleanly. Mid-turn: it would finish the turn first, so kill.
      const idle = this.lock.run(() => !this.inFlight());
      leaving.push(proc.end(reason, idle ? IDLE_EXIT_WAIT_MS : 0, grace));
    }
    await Promise.all(leaving);
  }

  // ---- inside the lock ----

  private inFlight(): boolean {
    return this.current !== undefined || this.wire.size() > 0;
  }

  /** Starts a turn for inputs while nothing is in flight; failures settle the returned turn. */
  private beginTurnLocked(inputs: UserInput[], turnId?: string): StreamTurn {
    const turn = this.newTurnLocked(
      inputs.map((i) => i.id),
      turnId,
    );
    try {
      const proc = this.ensureProcessLocked();
      const msg = this.writeLocked(proc, inputs, 'turn', turn);
      msg.turn = turn;
      turn.wire.push(msg);
    } catch (err) {
      this.current = undefined;
      clearTimeout(turn.timer);
      turn.fail(
        asRudderError(err, 'AGENT_SPAWN_FAILED', { conversationId: this.conversationId, unanswered: turn.inputIds() }),
      );
    }
    return turn;
  }

  private newTurnLocked(inputIds: string[], turnId?: string): StreamTurn {
    const turn = new StreamTurn(inputIds, this.launch.env, turnId);
    this.current = turn;
    this.lastActive = Date.now();
    const timeout = this.launch.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
    turn.timer = setTimeout(() => {
      turn.timedOut = true;
      this.log.warn({ timeoutMs: timeout }, 'turn timeout: interrupting');
      void this.interrupt();
    }, timeout);
    turn.timer.unref();
    turn.emit({ type: 'started', inputIds });
    queueMicrotask(() => {
      for (const l of this.turnListeners) l(turn);
    });
    return turn;
  }

  private ensureProcessLocked(): AgentProcess {
    if (this.proc?.alive()) return this.proc;
    const args = streamArgs(this.launch, this.sid);
    const spec = {
      bin: this.launch.bin,
      args,
      cwd: this.launch.cwd,
      env: this.launch.env,
      logger: this.log,
      label: this.conversationId,
      tracker: this.launch.tracker,
      markPrefix: this.launch.markPrefix,
    };
    // A new session may start on the spare process started ahead for it (steering.spareProcess).
    const proc = this.launch.spare?.take(spec) ?? AgentProcess.spawn(spec);
    this.proc = proc;
    this.crashed = false;
    this.costBase = 0;
    this.modelsBase = {};
    this.log.info({ pid: proc.pid, resume: this.sid ?? null }, 'agent process started');
    proc.onLine((line) => this.onLine(proc, line));
    proc.onTruncatedTail((tail) =>
      this.log.warn({ pid: proc.pid, excerpt: tail.slice(0, 120) }, 'agent output ended in the middle of a frame'),
    );
    void proc.exited.then((info) => this.onExit(proc, info));
    return proc;
  }

  private writeLocked(
    proc: AgentProcess,
    inputs: UserInput[],
    kind: WireMessage['kind'],
    during: StreamTurn | undefined,
  ): WireMessage {
    const uuid = randomUUID();
    const text = agentText(inputs);
    const msg: WireMessage = { uuid, inputIds: inputs.map((i) => i.id), kind, writtenDuring: during };
    proc.write(encodeFrame(userMessage(text, uuid)));
    this.wire.add(msg);
    return msg;
  }

  private onLine(proc: AgentProcess, line: string): void {
    if (proc !== this.proc) return;
    const parsed = parseLine(line);
    if (parsed.kind === 'blank') return;
    if (parsed.kind === 'malformed') {
      this.log.warn(
        { pid: proc.pid, reason: parsed.reason, excerpt: parsed.excerpt },
        'agent output: malformed line skipped',
      );
      return;
    }
    try {
      this.lock.run(() => this.onFrameLocked(proc, parsed.frame));
    } catch (err) {
      this.log.error({ err, frameType: parsed.frame.type }, 'agent output: error while handling a frame');
    }
  }

  private onFrameLocked(proc: AgentProcess, frame: OutputFrame): void {
    switch (frame.type) {
      case 'system':
        if (frame.subtype === 'init') this.noteSessionId((frame as { session_id: string }).session_id, false);
        else this.current?.frames.handle(frame, this.current);
        return;
      case 'command_lifecycle': {
        const msg = this.wire.get(frame.command_uuid);
        if (!msg) return;
        if (frame.state === 'started') this.wire.takeIn(msg);
        else if (frame.state === 'cancelled' && !msg.turn)
          this.wire.drop(
            msg,
            'AGENT_STOPPED',
            'The message was withdrawn by an interrupt before the agent took it in.',
          );
        return;
      }
      case 'user':
        if (frame.isReplay && frame.uuid) {
          const msg = this.wire.get(frame.uuid);
          if (msg) this.wire.takeIn(msg);
          return;
        }
        this.current?.frames.handle(frame, this.current);
        return;
      case 'assistant':
      case 'stream_event':
      case 'rate_limit_event':
        this.current?.frames.handle(frame, this.current);
        return;
      case 'control_request':
        this.permissions.open(proc, frame, this.current);
        return;
      case 'control_response':
        this.log.debug({ response: frame.response }, 'control response');
        return;
      case 'result':
        this.onResultLocked(proc, frame);
        return;
      default:
        this.log.debug({ wireType: (frame as { wireType?: string }).wireType }, 'agent output: unmodelled frame kept');
    }
  }

  private onResultLocked(proc: AgentProcess, frame: ResultFrame): void {
    const named = frame.user_message_uuids ?? (frame.user_message_uuid ? [frame.user_message_uuid] : undefined);
    this.wire.takeInNamed(named);
    const turn = this.current;
    this.noteSessionId(frame.session_id, true);
    if (!turn) {
      this.log.warn({ subtype: frame.subtype }, 'agent output: a result with no turn running; ignored');
      return;
    }
    const { inputIds, steered } = this.wire.settle(turn, named);
    const outcome = classifyResult(frame, turn.frames, {
      inputIds,
      steered,
      interruptRequested: turn.interruptRequested,
      costBefore: this.costBase,
      modelsBefore: this.modelsBase,
      conversationId: this.conversationId,
      pid: proc.pid,
    });
    if (typeof frame.total_cost_usd === 'number') this.costBase = frame.total_cost_usd;
    if (frame.modelUsage && typeof frame.modelUsage === 'object') this.modelsBase = frame.modelUsage;
    this.finishTurnLocked(turn);
    if (turn.timedOut) {
      turn.fail(
        new RudderError('AGENT_TURN_TIMEOUT', undefined, {
          conversationId: this.conversationId,
          pid: proc.pid,
          unanswered: inputIds,
        }),
      );
    } else if ('ok' in outcome) {
      turn.succeed(outcome.ok);
    } else {
      if (outcome.error.code === 'AGENT_SESSION_NOT_FOUND') this.retireLocked(proc, outcome.error.message);
      turn.fail(outcome.error);
    }
  }

  /**
   * The CLI exits after a session it could not resume: nothing more may start in that process. What
   * it still held goes back to the caller untaken, and the next turn gets a new process and session.
   */
  private retireLocked(proc: AgentProcess, why: string): void {
    this.sid = undefined;
    this.proc = undefined;
    this.wire.dropAll(
      undefined,
      'AGENT_SESSION_NOT_FOUND',
      `${why} It was not taken in; it runs again in the new session.`,
    );
    this.permissions.dropFor(undefined);
    this.log.info({ pid: proc.pid }, 'agent process retired: its session could not be resumed');
    this.retiring.add(proc);
    void proc
      .end('its session could not be resumed', IDLE_EXIT_WAIT_MS, this.killGraceMs())
      .finally(() => this.retiring.delete(proc));
  }

  private finishTurnLocked(turn: StreamTurn): void {
    clearTimeout(turn.timer);
    if (this.current === turn) this.current = undefined;
    this.lastActive = Date.now();
    this.permissions.dropFor(turn);
  }

  private noteSessionId(id: string | undefined, persist: boolean): void {
    if (!id) return;
    const changed = id !== this.sid;
    this.sid = id;
    if (changed || persist) {
      try {
        this.launch.onSessionId?.(id);
      } catch (err) {
        this.log.error({ err }, 'persisting the session id failed');
      }
    }
  }

  private onExit(proc: AgentProcess, info: ExitInfo): void {
    if (proc !== this.proc) return;
    this.lock.run(() => {
      this.proc = undefined;
      const turn = this.current;
      const { code, detail } = describeExit(info, proc.stderrTail(), {
        stopped: this.stopped,
        timedOut: !!turn?.timedOut,
      });
      if (!info.reason && !this.stopped) this.crashed = true;
      if (code === 'AGENT_SESSION_NOT_FOUND') this.sid = undefined;
      this.log[info.reason ? 'info' : 'warn'](
        { pid: proc.pid, exitCode: info.code, signal: info.signal, reason: info.reason, inFlight: !!turn },
        'agent process exited',
      );
      const context = {
        conversationId: this.conversationId,
        pid: proc.pid,
        exitCode: info.code,
        signal: info.signal,
        stderr: proc.stderrTail().slice(-5),
      };
      if (turn) {
        this.finishTurnLocked(turn);
        if (turn.interruptRequested && !turn.timedOut && info.reason?.startsWith('interrupt')) {
          turn.succeed(interruptedResult(turn.frames, this.sid, turn.inputIds(), 'killed_after_interrupt'));
        } else {
          turn.fail(new RudderError(code, detail, { ...context, unanswered: turn.inputIds() }));
        }
      }
      this.wire.dropAll(turn, code, detail);
      this.permissions.dropFor(undefined);
    });
  }
}
