/**
 * The one-shot session: one plain `claude -p --output-format stream-json --verbose --resume <id>`
 * process per turn, the prompt written to its stdin, with the same parser and result type as the
 * persistent session. It cannot take a message mid-turn (steer: 'none') nor relay a permission
 * request; an interrupt stops the process, and the next turn resumes the session. A library class
 * (and the benchmark's cold start): the gateway runs every turn in a stream-json process instead.
 */
import { asRudderError, RudderError } from '../../errors.js';
import { agentText } from '../common/agent-text.js';
import { AgentSessionBase } from '../common/session-base.js';
import { TurnBase } from '../common/turn-base.js';
import type { Capabilities, PermissionAnswer, SteerPromise, SteerResult, UserInput } from '../session.js';
import { PLAIN_CAPABILITIES, steerNow } from '../session.js';
import { oneShotArgs } from './args.js';
import { describeExit, exitContext } from './exit.js';
import { classifyResult, interruptedResult, NO_TOTALS, TurnFrames } from './frames-to-events.js';
import { type ClaudeLaunch, spawnSpec } from './launch.js';
import { AgentProcess } from './process.js';
import { readLine } from './read-line.js';

class OneShotTurn extends TurnBase {
  readonly frames: TurnFrames;
  proc: AgentProcess | undefined;
  gotResult = false;
  /** Whether its process resumed a session (then the result's running totals include earlier processes). */
  resumed = false;

  constructor(inputIds: string[], env: Record<string, string | undefined>, turnId?: string) {
    super(inputIds, turnId);
    this.frames = new TurnFrames(env);
  }
}

export class ClaudeOneShotSession extends AgentSessionBase<OneShotTurn> {
  static readonly CAPABILITIES: Capabilities = { ...PLAIN_CAPABILITIES, steer: 'none' };
  private readonly launch: ClaudeLaunch;
  private sid: string | undefined;

  constructor(launch: ClaudeLaunch) {
    super(launch, 'claude-oneshot', ClaudeOneShotSession.CAPABILITIES);
    this.launch = launch;
    this.sid = launch.sessionId;
  }

  sessionId(): string | undefined {
    return this.sid;
  }

  pid(): number | undefined {
    const proc = this.turns.current?.proc;
    return proc?.alive() ? proc.pid : undefined;
  }

  protected inFlight(): boolean {
    return this.turns.current !== undefined;
  }

  /** Nothing can be written to a running one-shot turn: 'process-dead' means nothing was written. */
  steer(input: UserInput): SteerPromise {
    return steerNow(
      this.lock.run((): SteerResult => {
        if (this.stopped || this.turns.current) return { outcome: 'process-dead' };
        return { outcome: 'ran-as-turn', turn: this.beginTurn([input]) };
      }),
    );
  }

  async interrupt(): Promise<void> {
    const turn = this.turns.current;
    if (!turn?.proc?.alive()) return;
    turn.interruptRequested = true;
    await turn.proc.kill('interrupt', this.killGraceMs);
  }

  answerPermission(_requestId: string, _answer: PermissionAnswer): boolean {
    return false; // a one-shot process has no stdin channel for permission answers
  }

  async stop(reason: string): Promise<void> {
    this.stopped = true;
    const proc = this.turns.current?.proc;
    if (proc?.alive()) await proc.kill(reason, this.killGraceMs);
  }

  protected beginTurn(inputs: UserInput[], turnId?: string): OneShotTurn {
    const ids = inputs.map((i) => i.id);
    const turn = new OneShotTurn(ids, this.launch.env, turnId);
    turn.emit({ type: 'started', inputIds: ids });
    this.turns.open(turn);
    // One-shot processes cannot answer permission prompts: relay mode falls back to the CLI's default (ask = deny).
    const launchOpts =
      this.launch.permissionMode === 'relay' ? { ...this.launch, permissionMode: 'manual' as const } : this.launch;
    try {
      turn.resumed = this.sid !== undefined;
      const proc = AgentProcess.spawn(spawnSpec(this.launch, oneShotArgs(launchOpts, this.sid), this.log));
      turn.proc = proc;
      proc.write(agentText(inputs));
      proc.closeStdin();
      proc.onLine((line) => this.onLine(turn, proc, line));
      void proc.exited.then((info) => this.lock.run(() => this.onExitLocked(turn, proc, info)));
    } catch (err) {
      this.turns.close(turn);
      turn.fail(asRudderError(err, 'AGENT_SPAWN_FAILED', { ...this.context(), unanswered: ids }));
      return turn;
    }
    this.startTurnTimer(turn, () => void turn.proc?.kill('turn timeout', this.killGraceMs));
    void turn.result.finally(() => clearTimeout(turn.timer)).catch(() => undefined);
    return turn;
  }

  private onLine(turn: OneShotTurn, proc: AgentProcess, line: string): void {
    const frame = readLine(line, this.log, proc.pid);
    if (!frame) return;
    if (frame.type === 'system' && frame.subtype === 'init')
      this.noteSessionId((frame as { session_id: string }).session_id);
    if (frame.type !== 'result') {
      turn.frames.handle(frame, turn);
      return;
    }
    turn.gotResult = true;
    this.noteSessionId(frame.session_id);
    const outcome = classifyResult(frame, turn.frames, {
      inputIds: turn.inputIds(),
      steered: 0,
      interruptRequested: turn.interruptRequested,
      // A process per turn: with --resume its totals start at the session's, so only its own figures are the turn's.
      before: turn.resumed ? undefined : NO_TOTALS,
      conversationId: this.conversationId,
      pid: proc.pid,
    });
    this.lock.run(() => this.turns.close(turn));
    if ('ok' in outcome) turn.succeed(outcome.ok);
    else {
      if (outcome.error.code === 'AGENT_SESSION_NOT_FOUND') this.sid = undefined;
      turn.fail(outcome.error);
    }
  }

  private onExitLocked(turn: OneShotTurn, proc: AgentProcess, info: Awaited<AgentProcess['exited']>): void {
    this.turns.close(turn);
    if (turn.gotResult) return;
    if (turn.interruptRequested && info.reason === 'interrupt') {
      turn.succeed(interruptedResult(turn.frames, this.sid, turn.inputIds(), 'killed_on_interrupt'));
      return;
    }
    const { code, detail } = describeExit(info, proc.stderrTail(), { stopped: this.stopped, timedOut: turn.timedOut });
    if (code === 'AGENT_SESSION_NOT_FOUND') this.sid = undefined;
    turn.fail(
      new RudderError(code, detail, { ...this.context(), ...exitContext(info, proc.pid), unanswered: turn.inputIds() }),
    );
  }

  private noteSessionId(id: string | undefined): void {
    if (!id) return;
    this.sid = id;
    this.saveSessionId(id);
  }
}
