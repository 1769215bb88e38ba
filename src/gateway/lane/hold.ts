/**
 * A lane's hold: while Claude is rate limited, the agent's terminal did not take a message, or the
 * project's daily budget is spent, or the agent cannot be reached, the lane starts nothing until
 * `until`; then its timer puts the held messages back in line (an unreachable agent's session also
 * says when it is back).
 */
import type { HeldFor } from '../../store/types.js';

export type HoldReason = 'rate-limit' | 'agent-terminal' | 'budget' | 'agent-unreachable';

const ENDED: Record<HoldReason, string> = {
  'rate-limit': 'the rate limit reset',
  'agent-terminal': 'the agent terminal hold ended',
  budget: 'the daily budget reset',
  'agent-unreachable': 'time to try the unreachable agent again',
};

export class Hold {
  until = 0;
  why: HoldReason = 'rate-limit';
  /** The CLI gave no reset time: `until` is a guess, and every notice says so. */
  estimated = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly onEnd: (why: string, reason: HoldReason) => void) {}

  active(now = Date.now()): boolean {
    return this.until > now;
  }

  /** The held_for a message held now is stored with. */
  heldFor(): HeldFor {
    if (this.why !== 'rate-limit') return this.why;
    return this.estimated ? 'rate-limit-estimated' : 'rate-limit';
  }

  /** Held until `until` at the latest of this and any earlier hold. */
  start(until: number, why: HoldReason, estimated: boolean): void {
    if (until >= this.until) this.estimated = estimated;
    this.until = Math.max(this.until, until);
    this.why = why;
    clearTimeout(this.timer);
    const end = ENDED[why];
    this.timer = setTimeout(() => this.onEnd(end, why), Math.max(0, this.until - Date.now()));
    this.timer.unref();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.until = 0;
  }
}

/** How a stored hold is taken up again after a restart. */
export function holdOf(heldFor: HeldFor | null): { why: HoldReason; estimated: boolean } {
  if (heldFor === 'rate-limit' || heldFor === 'rate-limit-estimated')
    return { why: 'rate-limit', estimated: heldFor === 'rate-limit-estimated' };
  if (heldFor === 'budget') return { why: 'budget', estimated: false };
  return { why: heldFor === 'agent-unreachable' ? 'agent-unreachable' : 'agent-terminal', estimated: false };
}
