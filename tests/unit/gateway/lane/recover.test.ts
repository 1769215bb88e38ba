/** A message a restart found open, decided (src/gateway/lane/recover.ts). */
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS } from '../../../../src/gateway/lane/decide.js';
import { decideRecovery, mayFollowAgain } from '../../../../src/gateway/lane/recover.js';
import type { TurnRow } from '../../../../src/store/types.js';
import { row } from '../../../support/lane-rows.js';

describe('decideRecovery', () => {
  const now = 5_000;

  it('a budget hold waits in line (the budget is asked again); another hold is taken up from held_for', () => {
    expect(decideRecovery(row('a', { state: 'deferred', heldFor: 'budget' }), now)).toEqual({
      do: 'queue',
      requeue: true,
    });
    expect(
      decideRecovery(row('b', { state: 'deferred', heldFor: 'rate-limit-estimated', retryAt: 9_000 }), now),
    ).toEqual({ do: 'hold', until: 9_000, why: 'rate-limit', estimated: true });
    expect(decideRecovery(row('c', { state: 'deferred', heldFor: null }), now)).toEqual({
      do: 'hold',
      until: now,
      why: 'agent-terminal',
      estimated: false,
    });
  });

  it('queued waits again; what a turn had taken in is followed again, else run again once, else failed', () => {
    expect(decideRecovery(row('a', { state: 'queued' }), now)).toEqual({ do: 'queue', requeue: false });
    expect(decideRecovery(row('b', { state: 'running', attempts: 1 }), now)).toEqual({
      do: 'follow',
      otherwise: 'rerun',
    });
    expect(decideRecovery(row('c', { state: 'steering', attempts: MAX_ATTEMPTS }), now)).toEqual({
      do: 'follow',
      otherwise: 'fail',
    });
  });

  it('follows again only a turn whose end is not stored', () => {
    expect(mayFollowAgain(undefined)).toBe(false);
    expect(mayFollowAgain({ endedAt: null } as TurnRow)).toBe(true);
    expect(mayFollowAgain({ endedAt: 1 } as TurnRow)).toBe(false);
  });
});
