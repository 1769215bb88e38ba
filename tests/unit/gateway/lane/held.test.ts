/** Holding a lane's inputs, decided (src/gateway/lane/held.ts): until when, why, what each message is stored with. */
import { describe, expect, it } from 'vitest';
import { RudderError } from '../../../../src/errors.js';
import type { BudgetState } from '../../../../src/gateway/budget/budgets.js';
import { HELD_NOTE, HELD_REASON } from '../../../../src/gateway/budget/texts.js';
import {
  arrivalHold,
  budgetHold,
  type HeldView,
  rateLimitHold,
  reachableNotice,
  terminalHold,
  terminalNotice,
  unreachableHold,
} from '../../../../src/gateway/lane/held.js';

const now = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('the holds', () => {
  it('a rate limit holds until its reset, or 15 minutes when it gives none (then estimated)', () => {
    const known = rateLimitHold(new RudderError('AGENT_RATE_LIMITED', undefined, { resetsAt: now + 5_000 }), now);
    expect(known).toEqual({
      until: now + 5_000,
      why: 'rate-limit',
      estimated: false,
      heldFor: 'rate-limit',
      stored: 'rate limited',
    });
    const guessed = rateLimitHold(new RudderError('AGENT_RATE_LIMITED'), now);
    expect(guessed).toEqual({
      until: now + 15 * 60_000,
      why: 'rate-limit',
      estimated: true,
      heldFor: 'rate-limit-estimated',
      stored: 'rate limited (reset time estimated)',
    });
  });

  it("the terminal's hold lasts a minute and stores the code; an unreachable agent's stores what was said", () => {
    const err = new RudderError('AGENT_NOT_READY', 'The terminal shows a menu.');
    expect(terminalHold(err, now)).toMatchObject({ until: now + 60_000, heldFor: 'agent-terminal', stored: err.code });
    expect(terminalNotice(err, now + 60_000)).toBe(
      `⏳ ${err.message} Your message is kept and tried again at 12:01:00 UTC; send /retry to try sooner.`,
    );
    const lost = new RudderError('AGENT_UNREACHABLE', 'Node gpu is lost.');
    expect(unreachableHold(lost, now)).toEqual({
      until: now + 60_000,
      why: 'agent-unreachable',
      estimated: false,
      heldFor: 'agent-unreachable',
      stored: lost.message,
    });
  });

  it("a spent budget holds until the day's end", () => {
    const spent = { end: now + 3_600_000 } as BudgetState;
    expect(budgetHold(spent)).toEqual({
      until: now + 3_600_000,
      why: 'budget',
      estimated: false,
      heldFor: 'budget',
      stored: HELD_REASON,
    });
  });

  it('the person is told where an agent is reachable again, or that the agent is', () => {
    expect(reachableNotice('gpu', 2)).toBe('✓ gpu is reachable again: your 2 held message(s) run now, in order.');
    expect(reachableNotice(undefined, 1)).toMatch(/^✓ The agent is reachable again/);
  });
});

describe('arrivalHold', () => {
  const held = (over: Partial<HeldView>): HeldView => ({
    until: now,
    why: 'rate-limit',
    estimated: false,
    unreachable: undefined,
    ...over,
  });

  it('a message arriving while held waits with the same reason; only a rate limit asks the local model', () => {
    expect(arrivalHold(held({ estimated: true }), 'claude')).toEqual({
      until: now,
      heldFor: 'rate-limit-estimated',
      stored: 'rate limited (reset time estimated)',
      note: 'Claude is rate limited; this runs when the limit resets',
      fallback: true,
    });
    expect(arrivalHold(held({ why: 'budget' }), 'claude')).toMatchObject({ heldFor: 'budget', note: HELD_NOTE });
    expect(arrivalHold(held({ why: 'agent-terminal' }), 'claude')).toMatchObject({
      heldFor: 'agent-terminal',
      fallback: false,
    });
  });

  it('behind an unreachable agent it repeats what the person was told', () => {
    const told = { told: 'Node gpu is lost.', where: 'gpu' };
    expect(arrivalHold(held({ why: 'agent-unreachable', unreachable: told }), 'claude')).toMatchObject({
      stored: 'Node gpu is lost.',
      note: 'Node gpu is lost. This runs when it is back, after the messages before it.',
    });
    expect(arrivalHold(held({ why: 'agent-unreachable' }), 'claude').stored).toBe('The agent cannot be reached.');
  });
});
