/**
 * The turn lock. "Is a turn in flight?", the stdin write of a steer, and marking a turn done all
 * run inside it, so there is no window between a check and the write that depends on it.
 * Each critical section is synchronous (no await inside), so on Node's single thread holding it
 * is exclusive by construction; re-entry would mean a section calls out while holding it, which
 * is a bug, so it throws.
 */
export class TurnLock {
  private held = false;

  run<T>(section: () => T): T {
    if (this.held) throw new Error('turn lock re-entered: a critical section called back into the session');
    this.held = true;
    try {
      return section();
    } finally {
      this.held = false;
    }
  }
}
