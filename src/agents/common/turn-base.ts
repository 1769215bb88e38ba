/**
 * The Turn handle every backend returns: an event log replayed to each new listener, the
 * inputs taken in so far, and a result promise settled exactly once.
 */
import { randomUUID } from 'node:crypto';
import type { RudderError } from '../../errors.js';
import type { Turn, TurnEvent, TurnResult } from '../session.js';

interface Listener {
  fn: (e: TurnEvent) => void;
  /** Index of the next log entry this listener has not seen. */
  next: number;
}

/**
 * Events are appended to the log at once and delivered to listeners in a microtask, in order.
 * Delivery is never synchronous, so a listener that calls back into the session (start a turn,
 * steer) never runs inside the session's turn lock.
 */
export class TurnBase implements Turn {
  readonly id: string;
  readonly result: Promise<TurnResult>;
  /** A stop was asked for: an end that follows counts as interrupted, not failed. */
  interruptRequested = false;
  /** It ran past the turn timeout (a stop follows). */
  timedOut = false;
  /** The turn timeout's timer, cleared when the turn ends. */
  timer: NodeJS.Timeout | undefined;
  private readonly log: TurnEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly inputs: string[] = [];
  private settled = false;
  private flushScheduled = false;
  private resolveResult!: (r: TurnResult) => void;
  private rejectResult!: (e: RudderError) => void;

  /** `id`: the one the caller chose (the lane records a turn before it hands the inputs over), else a new one. */
  constructor(inputIds: string[], id: string = randomUUID()) {
    this.id = id;
    this.inputs.push(...inputIds);
    this.result = new Promise<TurnResult>((resolve, reject) => {
      this.resolveResult = resolve;
      this.rejectResult = reject;
    });
    // A caller that only reads events must not trigger an unhandled rejection.
    this.result.catch(() => undefined);
  }

  inputIds(): string[] {
    return [...this.inputs];
  }

  addInputs(ids: string[]): void {
    for (const id of ids) if (!this.inputs.includes(id)) this.inputs.push(id);
  }

  removeInputs(ids: string[]): void {
    for (const id of ids) {
      const i = this.inputs.indexOf(id);
      if (i >= 0) this.inputs.splice(i, 1);
    }
  }

  isSettled(): boolean {
    return this.settled;
  }

  emit(e: TurnEvent): void {
    if (this.settled) return;
    this.log.push(e);
    this.scheduleFlush();
  }

  /** Subscribes; the listener first receives every event logged so far. */
  onEvent(fn: (e: TurnEvent) => void): () => void {
    const l: Listener = { fn, next: 0 };
    this.listeners.add(l);
    this.scheduleFlush();
    return () => void this.listeners.delete(l);
  }

  events(): AsyncIterable<TurnEvent> {
    return {
      [Symbol.asyncIterator]: () => {
        const queue: TurnEvent[] = [];
        let wake: (() => void) | undefined;
        let finished = false;
        const off = this.onEvent((e) => {
          queue.push(e);
          if (e.type === 'result' || e.type === 'error') finished = true;
          wake?.();
        });
        return {
          next: async (): Promise<IteratorResult<TurnEvent>> => {
            for (;;) {
              const e = queue.shift();
              if (e) return { value: e, done: false };
              if (finished) {
                off();
                return { value: undefined, done: true };
              }
              await new Promise<void>((r) => (wake = r));
              wake = undefined;
            }
          },
          return: async (): Promise<IteratorResult<TurnEvent>> => {
            off();
            return { value: undefined, done: true };
          },
        };
      },
    };
  }

  /** Settles with a result; the final event is 'result'. */
  succeed(result: TurnResult): void {
    if (this.settled) return;
    this.emit({ type: 'result', result });
    this.settled = true;
    this.resolveResult(result);
  }

  /** Settles with an error; the final event is 'error'. */
  fail(error: RudderError): void {
    if (this.settled) return;
    this.emit({ type: 'error', error });
    this.settled = true;
    this.rejectResult(error);
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(() => {
      this.flushScheduled = false;
      for (const l of this.listeners) {
        while (l.next < this.log.length && this.listeners.has(l)) {
          const e = this.log[l.next++]!;
          try {
            l.fn(e);
          } catch {
            // A listener's bug must not break the turn or the other listeners.
          }
        }
      }
      if (this.settled) this.listeners.clear();
    });
  }
}
