/**
 * A session's running turn, and what the session reports about its turns over its life: who is told
 * of each new turn, when it was last active (the idle reaper reads it), how many inputs were steered
 * into running turns. One owner: the session and the part that follows its agent's wire (a ledger, a
 * transcript tracker, a thread's turns) change it through these transitions only.
 */
import type { Turn } from '../session.js';

export class TurnSlot<T extends Turn> {
  private running: T | undefined;
  private readonly listeners = new Set<(turn: Turn) => void>();
  private lastActive = Date.now();
  private steeredTotal = 0;

  /** The running turn, if any. */
  get current(): T | undefined {
    return this.running;
  }

  /** A turn begins: it is the running one (in place of any other), and every listener is told. */
  open(turn: T): void {
    this.running = turn;
    this.touch();
    this.announce(turn);
  }

  /** A turn ended: none runs now, unless another one already took its place. */
  close(turn: T): void {
    if (this.running === turn) this.running = undefined;
    this.touch();
  }

  /**
   * Tells the listeners of a turn, in a microtask: never inside the session's turn lock, since a listener may call
   * back into the session. open() does it; a session with several turns in flight calls it for the others.
   */
  announce(turn: Turn): void {
    queueMicrotask(() => {
      for (const l of this.listeners) l(turn);
    });
  }

  touch(): void {
    this.lastActive = Date.now();
  }

  /** Inputs were folded into a running turn. */
  steered(inputs: number): void {
    this.steeredTotal += inputs;
  }

  steeredCount(): number {
    return this.steeredTotal;
  }

  lastActiveAt(): number {
    return this.lastActive;
  }

  onTurn(listener: (turn: Turn) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
