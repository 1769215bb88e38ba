/**
 * Which turn each transcript entry belongs to, and which inputs each turn answers. Every message
 * Rudder types carries a marker (its wrapper id); the transcript says what became of it:
 *
 *   prompt entry with the marker              it arrived and started a turn (typed, or dequeued later)
 *   queue enqueue with the marker             typed while busy: it arrived in the TUI's queue
 *   queue remove, reason absorbed_mid_turn    folded into the running turn: steered
 *   system turn_duration                      the turn ended
 *   assistant entry with isApiErrorMessage    the turn ended on an API error (no turn_duration follows)
 *   user "[Request interrupted by user...]"   the turn stopped (Escape, or "No" at a permission prompt)
 *
 * A prompt entry while a turn is open ends that turn first: the TUI only starts a turn after the
 * previous one. A prompt without a marker was typed in the terminal itself: a turn of its own with no
 * inputs of Rudder's (or, absorbed from the TUI's queue, part of the running turn), told to the
 * session as typed in the terminal. Synchronous: the session runs it inside its turn lock.
 */
import { RudderError } from '../../../errors.js';
import type { TurnSlot } from '../../common/turn-slot.js';
import type { SteerResult } from '../../session.js';
import { TmuxTurn, type TurnEnd } from '../tmux-turn.js';
import type { TranscriptEntry } from './transcript-entries.js';

/** One typed message and what became of it. */
export interface Delivery {
  marker: string;
  inputIds: string[];
  kind: 'turn' | 'steer';
  /** The turn that was running when it was typed. */
  writtenDuring: TmuxTurn | undefined;
  /** The turn that took it in. */
  turn: TmuxTurn | undefined;
  arrived: boolean;
  /** Waiting in the TUI's queue (typed while busy, not yet absorbed or run). */
  queued: boolean;
  settle?: { resolve: (r: SteerResult) => void; reject: (e: RudderError) => void };
}

export interface TrackerHooks {
  sessionId(): string | undefined;
  context(): Record<string, unknown>;
  turnStarted(turn: TmuxTurn): void;
  turnEnded(turn: TmuxTurn): void;
  /** Text typed in the terminal reached the agent: a turn of its own, or taken into the running one. */
  typedInTerminal?(turn: TmuxTurn, text: string, how: 'turn' | 'steered'): void;
}

export class TurnTracker {
  readonly deliveries = new Map<string, Delivery>();
  /** Interrupt markers still to come for turns that a queued prompt already ended. */
  private staleInterrupts = 0;

  constructor(
    /** The session's running turn, its listeners and counts. */
    private readonly turns: TurnSlot<TmuxTurn>,
    private readonly hooks: TrackerHooks,
  ) {}

  get current(): TmuxTurn | undefined {
    return this.turns.current;
  }

  /** Messages typed (or being typed) that no turn has taken in yet. */
  waiting(): Delivery[] {
    return [...this.deliveries.values()].filter((d) => !d.turn);
  }

  inFlight(): boolean {
    return this.current !== undefined || this.waiting().length > 0;
  }

  begin(inputIds: string[], delivery?: Delivery, turnId?: string): TmuxTurn {
    const turn = new TmuxTurn(inputIds, turnId);
    if (delivery) delivery.turn = turn;
    turn.emit({ type: 'started', inputIds });
    this.turns.open(turn);
    this.hooks.turnStarted(turn);
    return turn;
  }

  /** Ends a turn with a result, and answers the deliveries it took in. */
  finish(turn: TmuxTurn, end: TurnEnd): void {
    if (turn.isSettled()) return;
    this.close(turn);
    if (turn.timedOut)
      return turn.fail(
        new RudderError('AGENT_TURN_TIMEOUT', undefined, { ...this.hooks.context(), unanswered: turn.inputIds() }),
      );
    if (turn.hasApiError()) return turn.fail(turn.apiFailure(this.hooks.context()));
    turn.succeed(turn.buildResult(end, this.hooks.sessionId()));
  }

  fail(turn: TmuxTurn, error: RudderError): void {
    if (turn.isSettled()) return;
    this.close(turn);
    turn.fail(error);
  }

  private close(turn: TmuxTurn): void {
    this.turns.close(turn);
    for (const [marker, d] of this.deliveries) if (d.turn === turn) this.deliveries.delete(marker);
    this.hooks.turnEnded(turn);
  }

  /** Withdraws a delivery that never reached the TUI (or was pulled back out of its queue). */
  drop(d: Delivery, error: RudderError): void {
    this.deliveries.delete(d.marker);
    d.settle?.reject(error);
    d.settle = undefined;
  }

  private byMarker(text: string | undefined): Delivery | undefined {
    if (!text) return undefined;
    for (const d of this.deliveries.values()) if (text.includes(d.marker)) return d;
    return undefined;
  }

  route(entries: TranscriptEntry[]): void {
    for (const e of entries) this.routeOne(e);
  }

  private routeOne(e: TranscriptEntry): void {
    const turn = this.current;
    switch (e.kind) {
      case 'prompt':
        return this.onPrompt(e.text);
      case 'queue': {
        const d = this.byMarker(e.content);
        if (!d && e.operation === 'remove' && e.reason === 'absorbed_mid_turn' && turn && e.content)
          return this.hooks.typedInTerminal?.(turn, e.content, 'steered');
        if (!d) return;
        if (e.operation === 'enqueue') (d.arrived = true), (d.queued = true);
        else if (e.operation === 'remove' && e.reason === 'absorbed_mid_turn' && turn) this.absorb(d, turn);
        else if (e.operation === 'popAll' || e.operation === 'remove') d.queued = false;
        return;
      }
      case 'assistant':
        if (turn?.take(e)) this.finish(turn, { kind: 'done', reason: 'api_error' });
        return;
      case 'tool-result':
        // A result for a tool of a turn that already ended (the TUI writes it after a queued prompt).
        if (turn?.ownsToolUse(e.toolUseId)) turn.take(e);
        return;
      case 'interrupted':
        if (this.staleInterrupts > 0) return void this.staleInterrupts--;
        // Before its own prompt is in, a marker belongs to the turn before (ended by the pane going idle).
        if (turn?.arrived)
          this.finish(
            turn,
            turn.denied
              ? { kind: 'denied' }
              : { kind: 'interrupted', reason: turn.interruptRequested ? 'interrupted' : 'interrupted_in_terminal' },
          );
        return;
      case 'turn-end':
        if (turn) this.finish(turn, { kind: 'done', durationMs: e.durationMs, reason: 'completed' });
        return;
      default:
        return;
    }
  }

  private onPrompt(text: string): void {
    const d = this.byMarker(text);
    const turn = this.current;
    if (d?.turn && d.turn === turn) {
      d.arrived = true;
      turn.arrive();
      return;
    }
    // A turn followed again after a restart: the prompt it looks back from is its own.
    if (turn?.adoptsPrompt && !turn.arrived) {
      turn.adoptsPrompt = false;
      turn.arrive();
      return;
    }
    // A new prompt means the TUI finished the open turn (a queued message runs right after it).
    if (turn?.arrived) {
      if (turn.interruptRequested) this.staleInterrupts++;
      this.finish(
        turn,
        turn.interruptRequested
          ? { kind: 'interrupted', reason: 'interrupted' }
          : { kind: 'done', reason: 'next_prompt' },
      );
    } else if (turn && !d) {
      // Someone typed into the terminal before our message arrived: ours still comes later.
      return;
    }
    if (!d) {
      // Typed in the terminal itself: a turn with no inputs of ours, so the lane waits for it.
      const own = this.begin([]).arrive();
      this.hooks.typedInTerminal?.(own, text, 'turn');
      return;
    }
    d.arrived = true;
    d.queued = false;
    const next = this.begin(d.inputIds, d);
    next.arrive();
    d.settle?.resolve({ outcome: 'ran-as-turn', turn: next });
    d.settle = undefined;
  }

  private absorb(d: Delivery, turn: TmuxTurn): void {
    d.arrived = true;
    d.queued = false;
    d.turn = turn;
    turn.addInputs(d.inputIds);
    turn.steered += d.inputIds.length;
    this.turns.steered(d.inputIds.length);
    for (const id of d.inputIds) turn.emit({ type: 'steer-absorbed', inputId: id });
    d.settle?.resolve({ outcome: d.writtenDuring === turn ? 'steered' : 'ran-as-turn', turn });
    d.settle = undefined;
  }
}
