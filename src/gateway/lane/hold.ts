/**
 * A lane's hold, beside its state (state.ts) and owned by the lane: while Claude is rate limited, the
 * agent's terminal did not take a message, the project's daily budget is spent, the agent cannot be
 * reached, or its session is open in a terminal program (Codex's TUI: one writer at a time), the lane starts
 * nothing until `until`; then its timer puts the held messages back in line
 * (an unreachable agent's session also says when it is back). Why it holds is data (`why`); so is what
 * the person was told of an unreachable agent, which outlives the hold until the agent is back.
 */
import type { HeldFor } from '../../store/types.js';

export type HoldReason = 'rate-limit' | 'agent-terminal' | 'budget' | 'agent-unreachable' | 'terminal-open';

const ENDED: Record<HoldReason, string> = {
  'rate-limit': 'the rate limit reset',
  'agent-terminal': 'the agent terminal hold ended',
  budget: 'the daily budget reset',
  'agent-unreachable': 'time to try the unreachable agent again',
  'terminal-open': 'the terminal hold ended',
};

/** What the person was told of an unreachable agent (once), and where it runs (the error's context.node). */
export interface Unreachable {
  told: string;
  where: string | undefined;
}

export class Hold {
  private untilAt = 0;
  private reason: HoldReason = 'rate-limit';
  private guessed = false;
  private toldUnreachable: Unreachable | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly onEnd: (why: string, reason: HoldReason) => void) {}

  get until(): number {
    return this.untilAt;
  }

  get why(): HoldReason {
    return this.reason;
  }

  /** The CLI gave no reset time: `until` is a guess, and every notice says so. */
  get estimated(): boolean {
    return this.guessed;
  }

  /** What the person was told of the unreachable agent, until it is back (or a stop forgets it). */
  get unreachable(): Unreachable | undefined {
    return this.toldUnreachable;
  }

  active(now = Date.now()): boolean {
    return this.until > now;
  }

  /** Held until `until` at the latest of this and any earlier hold. */
  start(until: number, why: HoldReason, estimated: boolean): void {
    if (until >= this.untilAt) this.guessed = estimated;
    this.untilAt = Math.max(this.untilAt, until);
    this.reason = why;
    clearTimeout(this.timer);
    const end = ENDED[why];
    this.timer = setTimeout(() => this.onEnd(end, why), Math.max(0, this.untilAt - Date.now()));
    this.timer.unref();
  }

  /** The hold ends (its time came, /retry, a stop); what the person was told of an unreachable agent stays. */
  clear(): void {
    clearTimeout(this.timer);
    this.untilAt = 0;
  }

  /** The person was told the agent cannot be reached: told once, until it is back. */
  tellUnreachable(told: Unreachable): void {
    this.toldUnreachable = told;
  }

  /** The agent is back (or a stop ended what waited for it): what the person had been told, if anything. */
  backReachable(): Unreachable | undefined {
    const was = this.toldUnreachable;
    this.toldUnreachable = undefined;
    return was;
  }
}

/** How a stored hold is taken up again after a restart. */
export function holdOf(heldFor: HeldFor | null): { why: HoldReason; estimated: boolean } {
  if (heldFor === 'rate-limit' || heldFor === 'rate-limit-estimated')
    return { why: 'rate-limit', estimated: heldFor === 'rate-limit-estimated' };
  if (heldFor === 'budget' || heldFor === 'terminal-open') return { why: heldFor, estimated: false };
  return { why: heldFor === 'agent-unreachable' ? 'agent-unreachable' : 'agent-terminal', estimated: false };
}
