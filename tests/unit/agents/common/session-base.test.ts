/**
 * The shell every agent session shares (agents/common/session-base.ts, turn-slot.ts), through the
 * smallest backend there is: a session whose agent is a function. Nothing of Rudder is faked; the
 * backend below is what a new backend writes on top of the base.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentSessionBase, type SessionLaunch, settledWithin } from '../../../../src/agents/common/session-base.js';
import { TurnBase } from '../../../../src/agents/common/turn-base.js';
import { TurnSlot } from '../../../../src/agents/common/turn-slot.js';
import type { PermissionAnswer, SteerPromise, Turn, UserInput } from '../../../../src/agents/session.js';
import { PLAIN_CAPABILITIES, steerNow } from '../../../../src/agents/session.js';
import { isRudderError, type RudderError } from '../../../../src/errors.js';
import { silentLogger } from '../../../../src/ops/logger.js';

const result = (inputIds: string[]) => ({
  text: 'ok',
  sessionId: 's',
  usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
  costUsd: undefined,
  durationMs: 0,
  numTurns: 1,
  terminalReason: 'completed',
  isError: false,
  interrupted: false,
  inputIds,
  steered: 0,
});

/** A backend in a few lines: a turn ends when the test says so; an interrupt is ignored unless `obeys`. */
class EchoSession extends AgentSessionBase {
  readonly interrupts: string[] = [];
  crashed = false;
  obeys = true;

  constructor(launch: SessionLaunch = launchOf()) {
    super(launch, 'echo', { ...PLAIN_CAPABILITIES, steer: 'none' });
  }

  sessionId(): string | undefined {
    return 'sid';
  }

  pid(): number | undefined {
    return undefined;
  }

  protected inFlight(): boolean {
    return this.turns.current !== undefined;
  }

  protected override dead(): boolean {
    return this.crashed;
  }

  protected beginTurn(inputs: UserInput[], turnId?: string): Turn {
    const turn = new TurnBase(
      inputs.map((i) => i.id),
      turnId,
    );
    this.startTurnTimer(turn, () => void this.interrupt());
    turn.emit({ type: 'started', inputIds: turn.inputIds() });
    this.turns.open(turn);
    return turn;
  }

  /** Ends the running turn with its result. */
  finish(): void {
    const turn = this.turns.current!;
    clearTimeout(turn.timer);
    this.turns.close(turn);
    turn.succeed(result(turn.inputIds()));
  }

  steer(_input: UserInput): SteerPromise {
    return steerNow({ outcome: 'process-dead' });
  }

  async interrupt(): Promise<void> {
    const turn = this.turns.current;
    this.interrupts.push(turn?.timedOut ? 'timeout' : 'asked');
    if (turn && this.obeys) this.finish();
    await this.graceThen(turn, async (graceMs) => void this.interrupts.push(`late after ${graceMs} ms`));
  }

  answerPermission(_requestId: string, _answer: PermissionAnswer): boolean {
    return false;
  }

  async stop(_reason: string): Promise<void> {
    this.stopped = true;
  }

  save(id: string): void {
    this.saveSessionId(id);
  }
}

const input = (id: string) => ({ inputs: [{ id, text: id }] });

function launchOf(extra: Partial<SessionLaunch> = {}): SessionLaunch {
  return { conversationId: 'c1', logger: silentLogger(), ...extra };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the session base', () => {
  it('refuses a turn while one runs and after a stop, naming the conversation', async () => {
    const s = new EchoSession();
    const turn = s.startTurn(input('a'));
    expect(s.state()).toBe('busy');
    expect(s.currentTurn()).toBe(turn);
    const busy = (() => {
      try {
        s.startTurn(input('b'));
      } catch (err) {
        return err as RudderError;
      }
    })();
    expect(isRudderError(busy, 'AGENT_BUSY')).toBe(true);
    expect(busy!.context.conversationId).toBe('c1');
    s.finish();
    expect(s.state()).toBe('idle');
    expect(s.currentTurn()).toBeUndefined();
    await s.stop('test');
    expect(s.state()).toBe('stopped');
    expect(() => s.startTurn(input('c'))).toThrow(/stopped/);
  });

  it('reads dead from the backend when nothing runs, busy first', () => {
    const s = new EchoSession();
    s.crashed = true;
    expect(s.state()).toBe('dead');
    s.startTurn(input('a'));
    expect(s.state()).toBe('busy');
  });

  it("tells each turn's listeners outside the turn lock, so they may start the next turn", async () => {
    const s = new EchoSession();
    const seen: string[] = [];
    const off = s.onTurn((t) => {
      seen.push(t.id);
      // Inside the lock this would throw "turn lock re-entered".
      if (t.id === 't1') {
        s.finish();
        s.startTurn({ ...input('b'), turnId: 't2' });
      }
    });
    s.startTurn({ ...input('a'), turnId: 't1' });
    expect(seen).toEqual([]);
    await Promise.resolve();
    await Promise.resolve();
    expect(seen).toEqual(['t1', 't2']);
    off();
    s.finish();
    s.startTurn(input('c'));
    await Promise.resolve();
    expect(seen).toEqual(['t1', 't2']);
  });

  it('counts the last activity at each turn start and end', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000);
    const s = new EchoSession();
    vi.setSystemTime(2_000);
    s.startTurn(input('a'));
    expect(s.lastActiveAt()).toBe(2_000);
    vi.setSystemTime(5_000);
    s.finish();
    expect(s.lastActiveAt()).toBe(5_000);
  });

  it('refuses the calls its capabilities rule out, lets go by stopping, and is never out of reach', async () => {
    const s = new EchoSession();
    expect(s.capabilities).toMatchObject({ clearContext: false, setModel: false, reattach: false });
    const clear = await s.clearContext().catch((e: unknown) => e);
    expect(isRudderError(clear, 'AGENT_UNSUPPORTED')).toBe(true);
    expect((clear as Error).message).toContain('echo has no clearContext');
    expect(isRudderError(await s.setModel('m').catch((e: unknown) => e), 'AGENT_UNSUPPORTED')).toBe(true);
    expect(() => s.reattach({ turnId: 't', inputIds: [] })).toThrow(/echo has no reattach/);
    const off = s.onReachable(() => undefined);
    off();
    await s.detach('gateway stopping');
    expect(s.state()).toBe('stopped');
  });

  it('a turn past the timeout (read from the launch at each turn) is marked timed out and interrupted', async () => {
    const launch = launchOf({ turnTimeoutMs: 60_000 });
    const s = new EchoSession(launch);
    launch.turnTimeoutMs = 30;
    const turn = s.startTurn(input('a'));
    await turn.result;
    expect(s.interrupts).toEqual(['timeout']);
    expect((turn as TurnBase).timedOut).toBe(true);
  });

  it('waits the interrupt grace for the turn to end, and only then stops it its own way', async () => {
    const s = new EchoSession(launchOf({ interruptGraceMs: 40 }));
    s.startTurn(input('a'));
    await s.interrupt();
    expect(s.interrupts).toEqual(['asked']);
    s.obeys = false;
    const turn = s.startTurn(input('b'));
    const t0 = Date.now();
    await s.interrupt();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(35);
    expect(s.interrupts).toEqual(['asked', 'asked', 'late after 40 ms']);
    expect(s.currentTurn()).toBe(turn);
  });

  it('hands a session id to the launch, and a failure to keep it is logged, never thrown', () => {
    const kept: string[] = [];
    new EchoSession(launchOf({ onSessionId: (id) => void kept.push(id) })).save('s1');
    expect(kept).toEqual(['s1']);
    expect(() =>
      new EchoSession(
        launchOf({
          onSessionId: () => {
            throw new Error('disk full');
          },
        }),
      ).save('s2'),
    ).not.toThrow();
  });
});

describe('the turn slot', () => {
  it('a turn that took the place of another stays running when the older one ends', () => {
    const slot = new TurnSlot<TurnBase>();
    const a = new TurnBase(['a']);
    const b = new TurnBase(['b']);
    slot.open(a);
    slot.open(b);
    slot.close(a);
    expect(slot.current).toBe(b);
    slot.close(b);
    expect(slot.current).toBeUndefined();
  });

  it('counts steered inputs over its life', () => {
    const slot = new TurnSlot<TurnBase>();
    slot.steered(2);
    slot.steered(1);
    expect(slot.steeredCount()).toBe(3);
  });

  it('settledWithin says whether every turn ended in time', async () => {
    const done = new TurnBase(['a']);
    done.succeed(result(['a']));
    const hanging = new TurnBase(['b']);
    expect(await settledWithin([], 10)).toBe(true);
    expect(await settledWithin([done], 10)).toBe(true);
    expect(await settledWithin([done, hanging], 20)).toBe(false);
  });
});
