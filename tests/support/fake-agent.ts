/**
 * A scripted in-process AgentSession, so a benchmark or test measures the gateway itself and not a
 * Claude process. Each turn answers after `turnMs` (0: on the next macrotask) with a text built from
 * its inputs; a message steered in while the turn runs is taken in at once (a "tool boundary" that
 * is always now). Every input is timestamped the moment it is handed over, like a write to stdin.
 * A script can make a turn play events first (tool calls, text between them, streamed text, a
 * permission request it waits on), each after a wait, as a long agent turn would.
 */
import { performance } from 'node:perf_hooks';
import { AgentSessionBase } from '../../src/agents/common/session-base.js';
import { TurnBase } from '../../src/agents/common/turn-base.js';
import type { SessionFactory } from '../../src/agents/pool.js';
import type {
  Capabilities,
  PermissionAnswer,
  PermissionRequest,
  SteerPromise,
  TurnEvent,
  TurnResult,
  UserInput,
} from '../../src/agents/session.js';
import { PLAIN_CAPABILITIES, steerNow } from '../../src/agents/session.js';
import type { RudderError } from '../../src/errors.js';
import { silentLogger } from '../../src/ops/logger.js';

/** One step of a scripted turn: an event after a wait, or a permission request the turn waits on. */
export type ScriptStep = { waitMs?: number; event: TurnEvent } | { waitMs?: number; ask: PermissionRequest };

export interface FakeAgentOptions {
  /** Events a turn plays before its answer, from the texts it took in. */
  script?: (texts: string[]) => ScriptStep[];
  /** Called with each permission answer the agent got. */
  onDecision?: (requestId: string, decision: FakeWireAnswer) => void;
  /** How long a turn runs before its result; 0 answers on the next macrotask. */
  turnMs?: number;
  /** The reply text of a turn, from the texts it took in. */
  reply?: (texts: string[]) => string;
  /** Called as each input reaches the agent: performance.now() at hand-over. */
  onInput?: (inputId: string, at: number, how: 'turn' | 'steer') => void;
  /** 'none' plays a backend that cannot take a message mid-turn. */
  steer?: Capabilities['steer'];
  /** A turn that fails instead of answering (a rate limit, a crash), from the texts it took in. */
  fail?: (texts: string[]) => RudderError | undefined;
  /** What a turn reports it cost (USD; undefined: no cost, as Codex), from the texts it took in; 0 by default. */
  cost?: (texts: string[]) => number | undefined;
}

/** What this fake agent's "wire" carries for an answer: allow/deny like Claude's, any other option by id. */
export type FakeWireAnswer = { allow: true } | { allow: false; message?: string } | { optionId: string };

function toWire(answer: PermissionAnswer): FakeWireAnswer {
  if (answer.optionId === 'allow') return { allow: true };
  if (answer.optionId === 'deny') return answer.message ? { allow: false, message: answer.message } : { allow: false };
  return { optionId: answer.optionId };
}

class FakeTurn extends TurnBase {
  steered = 0;
  readonly texts: string[] = [];
}

export class FakeAgentSession extends AgentSessionBase<FakeTurn> {
  private readonly sid: string;
  private asking: { requestId: string; resume: () => void } | undefined;

  constructor(
    conversationId: string,
    sessionId: string | undefined,
    private readonly opts: FakeAgentOptions = {},
  ) {
    super({ conversationId, logger: silentLogger() }, 'claude-stream', {
      ...PLAIN_CAPABILITIES,
      steer: opts.steer ?? 'tool-boundary',
    });
    this.sid = sessionId ?? `fake-${conversationId}`;
  }

  sessionId(): string {
    return this.sid;
  }

  pid(): number | undefined {
    return undefined;
  }

  protected inFlight(): boolean {
    return this.turns.current !== undefined;
  }

  protected beginTurn(inputs: UserInput[], turnId?: string): FakeTurn {
    return this.begin(inputs, turnId);
  }

  steer(input: UserInput): SteerPromise {
    if (this.stopped) return steerNow({ outcome: 'process-dead' });
    const turn = this.turns.current;
    if (!turn) return steerNow({ outcome: 'ran-as-turn', turn: this.begin([input]) });
    this.opts.onInput?.(input.id, performance.now(), 'steer');
    turn.addInputs([input.id]);
    turn.texts.push(input.text);
    turn.steered++;
    this.turns.steered(1);
    turn.emit({ type: 'steer-absorbed', inputId: input.id });
    return steerNow({ outcome: 'steered', turn });
  }

  async interrupt(): Promise<void> {
    const turn = this.turns.current;
    if (!turn) return;
    this.finish(turn, { interrupted: true, isError: true, text: '' });
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    const asking = this.asking;
    if (!asking || asking.requestId !== requestId) return false;
    this.asking = undefined;
    this.opts.onDecision?.(requestId, toWire(answer));
    setImmediate(asking.resume);
    return true;
  }

  async stop(_reason: string): Promise<void> {
    this.stopped = true;
    const turn = this.turns.current;
    if (!turn) return;
    this.turns.close(turn);
    turn.fail(this.failure('AGENT_STOPPED', '', turn.inputIds()));
  }

  private begin(inputs: UserInput[], turnId?: string): FakeTurn {
    const now = performance.now();
    for (const i of inputs) this.opts.onInput?.(i.id, now, 'turn');
    const turn = new FakeTurn(
      inputs.map((i) => i.id),
      turnId,
    );
    turn.texts.push(...inputs.map((i) => i.text));
    turn.emit({ type: 'started', inputIds: turn.inputIds() });
    this.turns.open(turn);
    const answer = () => {
      if (this.turns.current !== turn) return;
      const err = this.opts.fail?.(turn.texts);
      if (err) {
        this.turns.close(turn);
        err.context.unanswered ??= turn.inputIds();
        return turn.fail(err);
      }
      const text = this.opts.reply?.(turn.texts) ?? `ok (${turn.texts.length})`;
      turn.emit({ type: 'text', text });
      this.finish(turn, { text });
    };
    const later = () => (this.opts.turnMs ? setTimeout(answer, this.opts.turnMs) : setImmediate(answer));
    const steps = this.opts.script?.(turn.texts) ?? [];
    let i = 0;
    const next = (): void => {
      if (this.turns.current !== turn) return;
      const step = steps[i++];
      if (!step) return void later();
      setTimeout(() => {
        if (this.turns.current !== turn) return;
        if ('ask' in step) {
          this.asking = { requestId: step.ask.requestId, resume: next };
          turn.emit({ type: 'permission', request: step.ask });
          return;
        }
        turn.emit(step.event);
        next();
      }, step.waitMs ?? 0);
    };
    if (steps.length) next();
    else later();
    return turn;
  }

  private finish(turn: FakeTurn, r: { text: string; interrupted?: boolean; isError?: boolean }): void {
    if (this.turns.current !== turn) return;
    this.turns.close(turn);
    this.asking = undefined;
    const result: TurnResult = {
      text: r.text,
      sessionId: this.sid,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
      costUsd: this.opts.cost ? this.opts.cost(turn.texts) : 0,
      durationMs: 0,
      numTurns: 1,
      terminalReason: r.interrupted ? 'aborted_tools' : 'completed',
      isError: !!r.isError,
      interrupted: !!r.interrupted,
      inputIds: turn.inputIds(),
      steered: turn.steered,
    };
    turn.succeed(result);
  }
}

/** A session factory for startGateway({ sessionFactory }): every conversation gets a fake. */
export function fakeSessionFactory(opts: FakeAgentOptions = {}): () => SessionFactory {
  return () => ({
    live: (conversationId, sessionId) => new FakeAgentSession(conversationId, sessionId, opts),
  });
}
