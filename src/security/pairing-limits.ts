/**
 * How often one stranger may be given something: new pairing codes (a few a day) and replies
 * (one per PAIRING_REMIND_MS). Kept in memory and bounded; a restart forgets it, the codes
 * themselves are in the store.
 */

/** Strangers remembered at most; the least recently seen are forgotten first. */
const MAX_SENDERS = 10_000;

export class SenderLimiter {
  /** Per sender ("<channel>\n<sender>"): the times of recent grants, oldest first. */
  private readonly grants = new Map<string, number[]>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Whether take() would grant now, without counting. */
  can(key: string, now: number): boolean {
    return (this.grants.get(key) ?? []).filter((t) => now - t < this.windowMs).length < this.max;
  }

  /** True (and counted) when the sender had fewer than `max` grants in the window. */
  take(key: string, now: number): boolean {
    const recent = (this.grants.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (recent.length >= this.max) {
      this.grants.set(key, recent);
      return false;
    }
    recent.push(now);
    // Re-inserting keeps the map in last-seen order, so the first entries are the stalest.
    this.grants.delete(key);
    this.grants.set(key, recent);
    for (const k of this.grants.keys()) {
      if (this.grants.size <= MAX_SENDERS) break;
      this.grants.delete(k);
    }
    return true;
  }
}
