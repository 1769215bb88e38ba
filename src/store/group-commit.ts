/**
 * Group commit (store.groupCommit): every write made during one turn of the event loop joins one
 * transaction, committed at the end of that turn (setImmediate), so messages arriving together
 * share one commit instead of paying several each. What must not happen before a write is
 * durable waits for the commit:
 *   - committed(): the platform's acknowledgement (the HTTP 202, the update confirmed to the
 *     platform) and the delivery of a reply wait for it;
 *   - afterCommit(fn): reactions, event-stream events and the hand-off of a message to the agent
 *     (the lane's turn start and steer) run after it, in the order they came.
 * Nothing a person or the agent could notice happens before the write it depends on is durable.
 * Without the option (store.groupCommit false) every write commits on its own, and what waits for
 * a commit waits for the end of the transaction it was asked in.
 */
import type { Db } from './db.js';

export class GroupCommit {
  private open = false;
  private timer: NodeJS.Immediate | undefined;
  private waiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  private after: Array<() => void> = [];

  constructor(private readonly db: Db) {}

  /** Called before every write: opens the loop turn's transaction when none is open. */
  join(): void {
    if (this.open || this.db.inTransaction) return;
    this.db.exec('BEGIN IMMEDIATE');
    this.open = true;
    this.timer = setImmediate(() => this.flush());
  }

  /** Resolves once every write made so far is committed (at once when none waits). */
  committed(): Promise<void> {
    if (!this.open) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Runs fn once every write made so far is committed (at once when none waits); order is kept. */
  afterCommit(fn: () => void): void {
    if (!this.open) return fn();
    this.after.push(fn);
  }

  /** Commits the open group, then lets its waiters go on. Also called on close. */
  flush(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = undefined;
    if (!this.open) return;
    this.open = false;
    const waiters = this.waiters;
    const after = this.after;
    this.waiters = [];
    this.after = [];
    try {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    } catch (err) {
      // Nothing of the group is stored: its waiters fail (no acknowledgement), the platforms deliver again.
      try {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } catch {
        // Rolled back already.
      }
      for (const w of waiters) w.reject(err as Error);
      return;
    }
    for (const w of waiters) w.resolve();
    for (const fn of after) {
      try {
        fn();
      } catch {
        // An acknowledgement or an event subscriber that throws must not stop the others.
      }
    }
  }
}
