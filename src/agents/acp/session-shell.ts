/**
 * What every AgentSession holds whatever its agent: the running turn, the turn listeners, the last
 * activity and the steered count. Kept apart from the ACP specifics so it can become (or give way
 * to) the shared session base; its state changes only through began() and ended().
 */
import type { TurnBase } from '../common/turn-base.js';
import type { Turn } from '../session.js';

export class SessionShell<T extends TurnBase> {
  private running: T | undefined;
  private lastActive = Date.now();
  private steers = 0;
  private readonly listeners = new Set<(turn: Turn) => void>();

  current(): T | undefined {
    return this.running;
  }

  lastActiveAt(): number {
    return this.lastActive;
  }

  steeredCount(): number {
    return this.steers;
  }

  onTurn(listener: (turn: Turn) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** A turn began: it is the running one; it says so first, and the listeners hear of it after the caller's section. */
  began(turn: T): void {
    this.running = turn;
    this.lastActive = Date.now();
    turn.emit({ type: 'started', inputIds: turn.inputIds() });
    queueMicrotask(() => {
      for (const l of this.listeners) l(turn);
    });
  }

  /** A turn is over (the caller settles it). */
  ended(turn: T): void {
    if (this.running === turn) this.running = undefined;
    this.lastActive = Date.now();
  }

  steered(): void {
    this.steers++;
  }
}
