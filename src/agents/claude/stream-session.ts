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
import { agentText } from '../common/agent-text.js';
import { AgentSessionBase } from '../common/session-base.js';
import type { Capabilities, PermissionAnswer, SteerPromise, SteerResult, UserInput } from '../session.js';
import { PLAIN_CAPABILITIES, steerNow, steerPromise } from '../session.js';
import { streamArgs } from './args.js';
import { describeExit, exitContext } from './exit.js';
import { classifyResult, interruptedResult, NO_TOTALS, type RunningTotals, totalsOf } from './frames-to-events.js';
import { type ClaudeLaunch, spawnSpec } from './launch.js';
import { PermissionRelay } from './permission-relay.js';
import { AgentProcess, type ExitInfo } from './process.js';
import { encodeFrame, interruptRequest, type OutputFrame, type ResultFrame, userMessage } from './protocol/index.js';
import { readLine } from './read-line.js';
import { StreamTurn, type WireMessage } from './stream-turn.js';
import { WireLedger } from './wire-ledger.js';

/** How long an idle process may take to exit after its stdin closed before it is killed. */
const IDLE_EXIT_WAIT_MS = 2_000;

export class ClaudeStreamSession extends AgentSessionBase<StreamTurn> {
  /** What this backend can do, known before a session exists (the agent table and a node's heartbeat say it). */
  static readonly CAPABILITIES: Capabilities = { ...PLAIN_CAPABILITIES, steer: 'tool-boundary' };

  private readonly launch: ClaudeLaunch;
  private proc: AgentProcess | undefined;
  /** Processes let go of that are still exiting; stop() waits for them too. */
  private readonly retiring = new Set<AgentProcess>();
  /** Messages written and not yet answered, withdrawn or lost, and which turn took each in. */
  private readonly wire: WireLedger;
  private readonly permissions = new PermissionRelay();
  private sid: string | undefined;
  private crashed = false;
  /**
   * The session's running totals at the current process's last result, for a CLI that does not report a
   * turn's own figures; unknown in a process that resumed a session until its first result.
   */
  private totals: RunningTotals | undefined = NO_TOTALS;

  constructor(launch: ClaudeLaunch) {
    super(launch, 'claude-stream', ClaudeStreamSession.CAPABILITIES);
    this.launch = launch;
    this.sid = launch.sessionId;
    this.wire = new WireLedger({
      conversationId: this.conversationId,
      turns: this.turns,
      newTurn: () => this.newTurnLocked([]),
    });
  }

  sessionId(): string | undefined {
    return this.sid;
  }

  pid(): number | undefined {
    return this.proc?.alive() ? this.proc.pid : undefined;
  }

  protected override dead(): boolean {
    return this.crashed;
  }

  /** Recent stderr of the live process, for `rudder status` and error reports. */
  stderrTail(): string[] {
    return this.proc?.stderrTail() ?? [];
  }

  steer(input: UserInput): SteerPromise {
    const immediate = this.lock.run((): SteerResult | WireMessage => {
      const proc = this.proc;
      if (this.stopped || !proc?.alive()) return { outcome: 'process-dead' };
      if (!this.inFlight()) return { outcome: 'ran-as-turn', turn: this.beginTurn([input]) };
      try {
        return this.writeLocked(proc, [input], 'steer', this.turns.current);
      } catch {
        return { outcome: 'process-dead' };
      }
    });
    if ('outcome' in immediate) return steerNow(immediate);
    const outcome = new Promise<SteerResult>((resolve, reject) => (immediate.settle = { resolve, reject }));
    return steerPromise(outcome, true);
  }

  async interrupt(opts: { cancelQueued?: boolean } = {}): Promise<void> {
    const { proc, turn } = this.lock.run(() => ({ proc: this.proc, turn: this.turns.current }));
    if (!proc?.alive() || (!turn && this.wire.size() === 0)) return;
    if (turn) turn.interruptRequested = true;
    try {
      proc.write(encodeFrame(interruptRequest(randomUUID(), !!opts.cancelQueued)));
    } catch {
      // The process is going away; its exit settles the turn.
    }
    await this.graceThen(turn, async (graceMs) => {
      if (!proc.alive()) return;
      this.log.warn(
        { pid: proc.pid, graceMs },
        'interrupt: no result in time, killing the process; the next turn resumes the session',
      );
      await proc.kill(`interrupt: no result within ${graceMs} ms`, this.killGraceMs);
    });
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    return this.proc?.alive() ? this.permissions.answer(this.proc, requestId, answer) : false;
  }

  async stop(reason: string): Promise<void> {
    this.stopped = true;
    const grace = this.killGraceMs;
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

  protected inFlight(): boolean {
    return this.turns.current !== undefined || this.wire.size() > 0;
  }

  /** Starts a turn for inputs while nothing is in flight; failures settle the returned turn. */
  protected beginTurn(inputs: UserInput[], turnId?: string): StreamTurn {
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
      this.turns.close(turn);
      clearTimeout(turn.timer);
      turn.fail(asRudderError(err, 'AGENT_SPAWN_FAILED', { ...this.context(), unanswered: turn.inputIds() }));
    }
    return turn;
  }

  private newTurnLocked(inputIds: string[], turnId?: string): StreamTurn {
    const turn = new StreamTurn(inputIds, this.launch.env, turnId);
    this.startTurnTimer(turn, () => void this.interrupt());
    turn.emit({ type: 'started', inputIds });
    this.turns.open(turn);
    return turn;
  }

  private ensureProcessLocked(): AgentProcess {
    if (this.proc?.alive()) return this.proc;
    const spec = spawnSpec(this.launch, streamArgs(this.launch, this.sid), this.log);
    // A new session may start on the spare process started ahead for it (steering.spareProcess).
    const proc = this.launch.spare?.take(spec) ?? AgentProcess.spawn(spec);
    this.proc = proc;
    this.crashed = false;
    this.totals = this.sid ? undefined : NO_TOTALS;
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
    const frame = readLine(line, this.log, proc.pid);
    if (!frame) return;
    try {
      this.lock.run(() => this.onFrameLocked(proc, frame));
    } catch (err) {
      this.log.error({ err, frameType: frame.type }, 'agent output: error while handling a frame');
    }
  }

  private onFrameLocked(proc: AgentProcess, frame: OutputFrame): void {
    switch (frame.type) {
      case 'system':
        if (frame.subtype === 'init') this.noteSessionId((frame as { session_id: string }).session_id, false);
        else this.turns.current?.frames.handle(frame, this.turns.current);
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
        this.turns.current?.frames.handle(frame, this.turns.current);
        return;
      case 'assistant':
      case 'stream_event':
      case 'rate_limit_event':
        this.turns.current?.frames.handle(frame, this.turns.current);
        return;
      case 'control_request':
        this.permissions.open(proc, frame, this.turns.current);
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
    const turn = this.turns.current;
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
      before: this.totals,
      conversationId: this.conversationId,
      pid: proc.pid,
    });
    this.totals = totalsOf(frame, this.totals);
    this.finishTurnLocked(turn);
    if (turn.timedOut) {
      turn.fail(
        new RudderError('AGENT_TURN_TIMEOUT', undefined, { ...this.context(), pid: proc.pid, unanswered: inputIds }),
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
      .end('its session could not be resumed', IDLE_EXIT_WAIT_MS, this.killGraceMs)
      .finally(() => this.retiring.delete(proc));
  }

  private finishTurnLocked(turn: StreamTurn): void {
    clearTimeout(turn.timer);
    this.turns.close(turn);
    this.permissions.dropFor(turn);
  }

  private noteSessionId(id: string | undefined, persist: boolean): void {
    if (!id) return;
    const changed = id !== this.sid;
    this.sid = id;
    if (changed || persist) this.saveSessionId(id);
  }

  private onExit(proc: AgentProcess, info: ExitInfo): void {
    if (proc !== this.proc) return;
    this.lock.run(() => {
      this.proc = undefined;
      const turn = this.turns.current;
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
      const context = { ...this.context(), ...exitContext(info, proc.pid), stderr: proc.stderrTail().slice(-5) };
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
