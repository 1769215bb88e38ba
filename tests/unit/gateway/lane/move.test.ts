/**
 * A hand-back's move (src/gateway/lane/state.ts): an idle lane that moves its session to a terminal starts
 * nothing until the move is done (what arrives waits in line: tests/scenarios/attach/hand-back.test.ts); a stop
 * meanwhile leaves the move on.
 */
import { describe, expect, it } from 'vitest';
import { type LaneState, mayStart, moving, next } from '../../../../src/gateway/lane/state.js';

describe('a lane whose session moves to a terminal', () => {
  it('moves only from idle, starts nothing meanwhile, and is idle again once released', () => {
    const idle: LaneState = { is: 'idle' };
    const s = next(idle, { on: 'move' });
    expect(s).toEqual({ is: 'releasing', moving: true });
    expect(moving(s)).toBe(true);
    expect(mayStart(s)).toBe(false);
    expect(next(s, { on: 'released' })).toEqual({ is: 'idle' });
    expect(mayStart(next(s, { on: 'released' }))).toBe(true);
    // A release for /model is not a move: starts are not held back by it.
    expect(mayStart({ is: 'releasing' })).toBe(true);
    expect(next({ is: 'running' }, { on: 'move' })).toEqual({ is: 'running' });
  });

  it('a stop during the move ends what waits and leaves the move going on', () => {
    const s = next({ is: 'idle' }, { on: 'move' });
    expect(next(s, { on: 'stop' })).toEqual(s);
    expect(next(s, { on: 'stop-ended', agentBusy: false })).toEqual(s);
  });
});
