/**
 * The shell every AgentSession shares, so a backend writes only what its agent's wire needs: the
 * running turn, its listeners, the last activity and the steered count (turn-slot.ts); the state
 * (stopped, busy, dead, idle) from what the backend says of itself; startTurn's refusals (stopped,
 * busy) inside the turn lock; the turn timeout; the interrupt's grace period, after which the
 * backend stops what did not end; the session id handed to the launch's onSessionId; and the calls a
 * backend without the capability refuses (clearContext, setModel, reattach), or does as it can
 * (detach is a stop, onReachable never fires: its agent is never out of reach).
 *
 * A backend: its constructor calls super with its launch, its name and its capabilities; it writes
 * sessionId, pid, inFlight (and busy or dead where they differ), beginTurn (called inside the
 * lock), steer, interrupt, answerPermission and stop; and overrides a gated call it can make.
 */
import { type ErrorCode, RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type {
  AgentSession,
  Capabilities,
  PermissionAnswer,
  SessionState,
  SteerPromise,
  Turn,
  TurnInput,
  UserInput,
} from '../session.js';
import type { TurnBase } from './turn-base.js';
import { TurnLock } from './turn-lock.js';
import { TurnSlot } from './turn-slot.js';

/** What every backend's launch holds for the shell (each backend's launch adds its own). */
export interface SessionLaunch {
  conversationId: string;
  logger: Logger;
  /** The session to resume, if any. */
  sessionId?: string;
  /** Called with the session id the agent reports, so it can be persisted. */
  onSessionId?: (sessionId: string) => void;
  /** A turn running longer than this is interrupted. Default 30 min. */
  turnTimeoutMs?: number;
  /** How long an interrupt waits for the turn to end before the backend stops it its own way. Default 5 s. */
  interruptGraceMs?: number;
  /** SIGTERM -> SIGKILL delay. Default 3 s. */
  killGraceMs?: number;
}

export const DEFAULT_TURN_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_INTERRUPT_GRACE_MS = 5_000;
export const DEFAULT_KILL_GRACE_MS = 3_000;

/** Resolves true when every turn has settled within `ms`, false when the time ran out first. */
export async function settledWithin(turns: Turn[], ms: number): Promise<boolean> {
  if (!turns.length) return true;
  let timer: NodeJS.Timeout | undefined;
  const settled = Promise.allSettled(turns.map((t) => t.result)).then(() => true);
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  const inTime = await Promise.race([settled, late]);
  clearTimeout(timer);
  return inTime;
}

export abstract class AgentSessionBase<T extends TurnBase = TurnBase> implements AgentSession {
  readonly conversationId: string;
  protected readonly log: Logger;
  /** "Is a turn in flight?" and the write that depends on it run inside it (turn-lock.ts). */
  protected readonly lock = new TurnLock();
  protected readonly turns = new TurnSlot<T>();
  protected stopped = false;

  constructor(
    /** Read at each use: a launch's timings may change between turns. */
    private readonly shell: SessionLaunch,
    /** A name for logs and status; never tested to decide anything. */
    readonly backend: string,
    private readonly declared: Capabilities,
    /** What each log line names besides the conversation (the backend by default). */
    logAs: Record<string, unknown> = { backend },
  ) {
    this.conversationId = shell.conversationId;
    this.log = shell.logger.child({ conversationId: shell.conversationId, ...logAs });
  }

  /** What the backend said it can do; an agent that says so only once it runs overrides this getter. */
  get capabilities(): Capabilities {
    return this.declared;
  }

  protected get turnTimeoutMs(): number {
    return this.shell.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
  }

  protected get interruptGraceMs(): number {
    return this.shell.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS;
  }

  protected get killGraceMs(): number {
    return this.shell.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  }

  abstract sessionId(): string | undefined;
  abstract pid(): number | undefined;
  abstract steer(input: UserInput): SteerPromise;
  abstract interrupt(opts?: { cancelQueued?: boolean }): Promise<void>;
  abstract answerPermission(requestId: string, answer: PermissionAnswer): boolean;
  abstract stop(reason: string): Promise<void>;

  /** A turn or a message is on its way through the agent: startTurn refuses (AGENT_BUSY). */
  protected abstract inFlight(): boolean;
  /** Starts a turn for the inputs; called inside the lock, once nothing is in flight. Failures settle the turn. */
  protected abstract beginTurn(inputs: UserInput[], turnId?: string): Turn;

  /** The state reads busy while this holds (by default: while something is in flight). */
  protected busy(): boolean {
    return this.inFlight();
  }

  /** The agent died on its own and nothing runs: the next turn starts it again. */
  protected dead(): boolean {
    return false;
  }

  /** What errors of this session name (its conversation; a backend adds its pid, its pane). */
  protected context(): Record<string, unknown> {
    return { conversationId: this.conversationId };
  }

  state(): SessionState {
    if (this.stopped) return 'stopped';
    if (this.busy()) return 'busy';
    return this.dead() ? 'dead' : 'idle';
  }

  lastActiveAt(): number {
    return this.turns.lastActiveAt();
  }

  steeredCount(): number {
    return this.turns.steeredCount();
  }

  currentTurn(): Turn | undefined {
    return this.turns.current;
  }

  onTurn(listener: (turn: Turn) => void): () => void {
    return this.turns.onTurn(listener);
  }

  startTurn(input: TurnInput): Turn {
    return this.lock.run(() => {
      if (this.stopped) throw new RudderError('AGENT_STOPPED', undefined, this.context());
      if (this.inFlight()) throw new RudderError('AGENT_BUSY', undefined, this.context());
      return this.beginTurn(input.inputs, input.turnId);
    });
  }

  clearContext(): Promise<void> {
    return Promise.reject(this.unsupported('clearContext'));
  }

  setModel(_model: string | undefined): Promise<void> {
    return Promise.reject(this.unsupported('setModel'));
  }

  reattach(_turn: { turnId: string; inputIds: string[] }): Turn {
    throw this.unsupported('reattach');
  }

  /** Without capabilities.reattach nothing goes on without Rudder: letting go is stopping. */
  detach(reason: string): Promise<void> {
    return this.stop(reason);
  }

  onReachable(_listener: () => void): () => void {
    return () => undefined;
  }

  /** Arms the turn timeout: past it the turn is marked timed out and `expired` stops it. */
  protected startTurnTimer(turn: T, expired: () => void): void {
    const timeoutMs = this.turnTimeoutMs;
    turn.timer = setTimeout(() => {
      turn.timedOut = true;
      this.log.warn({ timeoutMs }, 'turn timeout: interrupting');
      expired();
    }, timeoutMs);
    turn.timer.unref();
  }

  /**
   * The interrupt's wait: the turn was asked to stop; when it has not ended within the grace period, `late` stops
   * it the backend's way (kills the process, ends the turn itself).
   */
  protected async graceThen(turn: Turn | undefined, late: (graceMs: number) => Promise<void>): Promise<void> {
    if (!turn || (await settledWithin([turn], this.interruptGraceMs))) return;
    await late(this.interruptGraceMs);
  }

  /** Hands a session id to the launch's onSessionId (which persists it); a failure is logged, never thrown. */
  protected saveSessionId(id: string, what = 'the session id'): void {
    try {
      this.shell.onSessionId?.(id);
    } catch (err) {
      this.log.error({ err }, `persisting ${what} failed`);
    }
  }

  /** An error of this session that leaves inputs unanswered (the lane hands them over again). */
  protected failure(code: ErrorCode, detail: string, unanswered: string[]): RudderError {
    return new RudderError(code, detail, { ...this.context(), unanswered });
  }

  /** A caller that did not read the capabilities: the call it gates is refused. */
  private unsupported(call: string): RudderError {
    return new RudderError('AGENT_UNSUPPORTED', `${this.backend} has no ${call}.`, this.context());
  }
}
