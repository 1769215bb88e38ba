/**
 * The one-shot session: one plain `claude -p --output-format stream-json --verbose --resume <id>`
 * process per turn, the prompt written to its stdin, with the same parser and result type as the
 * persistent session. It cannot take a message mid-turn (steer: 'none') nor relay a permission
 * request; an interrupt stops the process, and the next turn resumes the session. A library class
 * (and the benchmark's cold start): the gateway runs every turn in a stream-json process instead.
 */
import { asRudderError, RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import { agentText } from '../common/agent-text.js';
import { TurnBase } from '../common/turn-base.js';
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
import { oneShotArgs } from './args.js';
import { describeExit } from './exit.js';
import { classifyResult, interruptedResult, TurnFrames } from './frames-to-events.js';
import { type ClaudeLaunch, DEFAULT_KILL_GRACE_MS, DEFAULT_TURN_TIMEOUT_MS } from './launch.js';
import { AgentProcess } from './process.js';
import { parseLine } from './protocol/parse.js';

class OneShotTurn extends TurnBase {
  readonly frames: TurnFrames;
  proc: AgentProcess | undefined;
  gotResult = false;
  interruptRequested = false;
  timedOut = false;

  constructor(inputIds: string[], env: Record<string, string | undefined>, turnId?: string) {
    super(inputIds, turnId);
    this.frames = new TurnFrames(env);
  }
}

export class ClaudeOneShotSession implements AgentSession {
  readonly backend = 'claude-oneshot' as const;
  readonly capabilities: Capabilities = { steer: 'none', interrupt: true, resume: true };
  readonly conversationId: string;
  private readonly launch: ClaudeLaunch;
  private readonly log: Logger;
  private readonly lock = new TurnLock();
  private readonly turnListeners = new Set<(t: Turn) => void>();
  private current: OneShotTurn | undefined;
  private sid: string | undefined;
  private stopped = false;
  private lastActive = Date.now();

  constructor(launch: ClaudeLaunch) {
    this.launch = launch;
    this.conversationId = launch.conversationId;
    this.log = launch.logger.child({ conversationId: launch.conversationId, backend: this.backend });
    this.sid = launch.sessionId;
  }

  sessionId(): string | undefined {
    return this.sid;
  }

  pid(): number | undefined {
    return this.current?.proc?.alive() ? this.current.proc.pid : undefined;
  }

  state(): SessionState {
    return this.stopped ? 'stopped' : this.current ? 'busy' : 'idle';
  }

  lastActiveAt(): number {
    return this.lastActive;
  }

  steeredCount(): number {
    return 0;
  }

  currentTurn(): Turn | undefined {
    return this.current;
  }

  onTurn(listener: (turn: Turn) => void): () => void {
    this.turnListeners.add(listener);
    return () => void this.turnListeners.delete(listener);
  }

  startTurn(input: TurnInput): Turn {
    return this.lock.run(() => {
      if (this.stopped) throw new RudderError('AGENT_STOPPED', undefined, { conversationId: this.conversationId });
      if (this.current) throw new RudderError('AGENT_BUSY', undefined, { conversationId: this.conversationId });
      return this.beginLocked(input.inputs, input.turnId);
    });
  }

  /** Nothing can be written to a running one-shot turn: 'process-dead' means nothing was written. */
  steer(input: UserInput): SteerPromise {
    const r = this.lock.run((): SteerResult => {
      if (this.stopped || this.current) return { outcome: 'process-dead' };
      return { outcome: 'ran-as-turn', turn: this.beginLocked([input]) };
    });
    return steerPromise(Promise.resolve(r), r.outcome !== 'process-dead');
  }

  async interrupt(): Promise<void> {
    const turn = this.current;
    if (!turn?.proc?.alive()) return;
    turn.interruptRequested = true;
    await turn.proc.kill('interrupt', this.launch.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
  }

  answerPermission(_requestId: string, _answer: PermissionAnswer): boolean {
    return false; // a one-shot process has no stdin channel for permission answers
  }

  async stop(reason: string): Promise<void> {
    this.stopped = true;
    const proc = this.current?.proc;
    if (proc?.alive()) await proc.kill(reason, this.launch.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
  }

  private beginLocked(inputs: UserInput[], turnId?: string): OneShotTurn {
    const ids = inputs.map((i) => i.id);
    const turn = new OneShotTurn(ids, this.launch.env, turnId);
    this.current = turn;
    this.lastActive = Date.now();
    turn.emit({ type: 'started', inputIds: ids });
    queueMicrotask(() => {
      for (const l of this.turnListeners) l(turn);
    });
    const prompt = agentText(inputs);
    // One-shot processes cannot answer permission prompts: relay mode falls back to the CLI's default (ask = deny).
    const launchOpts =
      this.launch.permissionMode === 'relay' ? { ...this.launch, permissionMode: 'manual' as const } : this.launch;
    try {
      const proc = AgentProcess.spawn({
        bin: this.launch.bin,
        args: oneShotArgs(launchOpts, this.sid),
        cwd: this.launch.cwd,
        env: this.launch.env,
        logger: this.log,
        label: this.conversationId,
        tracker: this.launch.tracker,
        markPrefix: this.launch.markPrefix,
      });
      turn.proc = proc;
      proc.write(prompt);
      proc.closeStdin();
      proc.onLine((line) => this.onLine(turn, proc, line));
      void proc.exited.then((info) => this.lock.run(() => this.onExitLocked(turn, proc, info)));
    } catch (err) {
      this.current = undefined;
      turn.fail(asRudderError(err, 'AGENT_SPAWN_FAILED', { conversationId: this.conversationId, unanswered: ids }));
      return turn;
    }
    const timeout = this.launch.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
    const timer = setTimeout(() => {
      turn.timedOut = true;
      void turn.proc?.kill('turn timeout', this.launch.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    }, timeout);
    timer.unref();
    void turn.result.finally(() => clearTimeout(timer)).catch(() => undefined);
    return turn;
  }

  private onLine(turn: OneShotTurn, proc: AgentProcess, line: string): void {
    const parsed = parseLine(line);
    if (parsed.kind === 'blank') return;
    if (parsed.kind === 'malformed') {
      this.log.warn(
        { pid: proc.pid, reason: parsed.reason, excerpt: parsed.excerpt },
        'agent output: malformed line skipped',
      );
      return;
    }
    const frame = parsed.frame;
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
      costBefore: 0,
      conversationId: this.conversationId,
      pid: proc.pid,
    });
    this.lock.run(() => this.finishLocked(turn));
    if ('ok' in outcome) turn.succeed(outcome.ok);
    else {
      if (outcome.error.code === 'AGENT_SESSION_NOT_FOUND') this.sid = undefined;
      turn.fail(outcome.error);
    }
  }

  private onExitLocked(turn: OneShotTurn, proc: AgentProcess, info: Awaited<AgentProcess['exited']>): void {
    this.finishLocked(turn);
    if (turn.gotResult) return;
    if (turn.interruptRequested && info.reason === 'interrupt') {
      turn.succeed(interruptedResult(turn.frames, this.sid, turn.inputIds(), 'killed_on_interrupt'));
      return;
    }
    const { code, detail } = describeExit(info, proc.stderrTail(), { stopped: this.stopped, timedOut: turn.timedOut });
    if (code === 'AGENT_SESSION_NOT_FOUND') this.sid = undefined;
    turn.fail(
      new RudderError(code, detail, {
        conversationId: this.conversationId,
        pid: proc.pid,
        exitCode: info.code,
        signal: info.signal,
        unanswered: turn.inputIds(),
      }),
    );
  }

  private finishLocked(turn: OneShotTurn): void {
    if (this.current === turn) this.current = undefined;
    this.lastActive = Date.now();
  }

  private noteSessionId(id: string | undefined): void {
    if (!id) return;
    this.sid = id;
    try {
      this.launch.onSessionId?.(id);
    } catch (err) {
      this.log.error({ err }, 'persisting the session id failed');
    }
  }
}
