/** Where an arriving message goes (src/gateway/lane/arrive.ts): pure decisions from a lane's snapshot. */
import { describe, expect, it } from 'vitest';
import { type ArrivalView, decideArrival, lineFor } from '../../../../src/gateway/lane/arrive.js';

function view(over: Partial<ArrivalView> = {}): ArrivalView {
  return {
    held: false,
    stopping: false,
    moving: false,
    mode: 'steer',
    busy: false,
    reviewing: () => undefined,
    waiting: 0,
    steerBlocker: () => undefined,
    ...over,
  };
}
const never = () => {
  throw new Error('not asked');
};

describe('decideArrival', () => {
  it('an idle lane with nothing waiting starts a turn; asking the review desk, never the steering checks', () => {
    expect(decideArrival(view({ steerBlocker: never }))).toEqual({ to: 'turn' });
  });

  it('a hold comes first, then a running stop, then collect mode, whatever else is true', () => {
    expect(decideArrival(view({ held: true, stopping: true, mode: 'collect', reviewing: never }))).toEqual({
      to: 'hold',
    });
    expect(decideArrival(view({ stopping: true, mode: 'collect', busy: true }))).toEqual({
      to: 'line',
      reason: 'a stop is running',
    });
    expect(decideArrival(view({ mode: 'collect', busy: true, reviewing: never }))).toEqual({ to: 'collect' });
  });

  it('not busy: waits behind earlier messages, or for a review action on its tree', () => {
    expect(decideArrival(view({ waiting: 2 }))).toEqual({ to: 'line', reason: 'earlier messages are waiting' });
    expect(decideArrival(view({ reviewing: () => 'commit' }))).toEqual({
      to: 'line',
      reason: 'waiting for the commit of this worktree to end',
    });
  });

  it('busy: steer mode steers with an empty line, and says why when it cannot', () => {
    const busy = { busy: true, reviewing: never };
    expect(decideArrival(view(busy))).toEqual({ to: 'steer' });
    expect(decideArrival(view({ ...busy, steerBlocker: () => 'steering is off (config)' }))).toEqual({
      to: 'line',
      reason: 'not steered: steering is off (config)',
    });
    // Steering past a queued message would overtake it.
    expect(decideArrival(view({ ...busy, waiting: 1, steerBlocker: never }))).toEqual({
      to: 'line',
      reason: 'a turn is running',
    });
  });

  it('busy: followup waits, interrupt stops the running turn first', () => {
    expect(decideArrival(view({ busy: true, mode: 'followup' }))).toEqual({ to: 'line', reason: 'followup mode' });
    expect(decideArrival(view({ busy: true, mode: 'interrupt', waiting: 3 }))).toEqual({
      to: 'line',
      reason: 'interrupt mode: stopping the running turn first',
      interrupt: true,
    });
  });

  it('in line: one later turn each until the queue cap, then the overflow', () => {
    expect(lineFor(2, 3)).toBe('push');
    expect(lineFor(3, 3)).toBe('overflow');
  });
});
