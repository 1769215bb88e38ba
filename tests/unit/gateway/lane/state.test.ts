/** A lane's state (src/gateway/lane/state.ts): each transition of the table in docs/architecture.md. */
import { describe, expect, it } from 'vitest';
import { type LaneState, mayStart, next, pendingStart } from '../../../../src/gateway/lane/state.js';

const start = { on: 'start', turnId: 't1', sender: 'ana' } as const;
const starting: LaneState = { is: 'starting', turnId: 't1', sender: 'ana' };

describe('a lane state', () => {
  it('idle → starting → running → idle: a turn written, handed over, ended with the agent free', () => {
    let s: LaneState = { is: 'idle' };
    s = next(s, start);
    expect(s).toEqual(starting);
    expect(pendingStart(s)).toEqual({ turnId: 't1', sender: 'ana' });
    expect(mayStart(s)).toBe(false);
    s = next(s, { on: 'start-ended', agentBusy: true });
    expect(s).toEqual({ is: 'running' });
    expect(mayStart(s)).toBe(true);
    s = next(s, { on: 'turn-began' });
    expect(s).toEqual({ is: 'running' });
    // The agent still busy (a steer settling): the lane goes on following.
    expect(next(s, { on: 'turn-ended', agentFree: false })).toEqual({ is: 'running' });
    expect(next(s, { on: 'turn-ended', agentFree: true })).toEqual({ is: 'idle' });
  });

  it("a start that hands nothing over goes back to idle; one refused for a turn of the agent's own is running", () => {
    expect(next(starting, { on: 'start-ended', agentBusy: false })).toEqual({ is: 'idle' });
    expect(next(starting, { on: 'start-ended', agentBusy: true })).toEqual({ is: 'running' });
  });

  it('a turn the agent begins on its own makes an idle lane running, and leaves a start or a stop as they are', () => {
    expect(next({ is: 'idle' }, { on: 'turn-began' })).toEqual({ is: 'running' });
    expect(next(starting, { on: 'turn-began' })).toBe(starting);
    const stopping: LaneState = { is: 'stopping' };
    expect(next(stopping, { on: 'turn-began' })).toBe(stopping);
  });

  it('a stop keeps a start waiting for its commit, and ends in it, else running or idle by the agent', () => {
    const s = next(starting, { on: 'stop' });
    expect(s).toEqual({ is: 'stopping', starting: { turnId: 't1', sender: 'ana' } });
    expect(pendingStart(s)).toEqual({ turnId: 't1', sender: 'ana' });
    expect(mayStart(s)).toBe(false);
    expect(next(s, { on: 'stop-ended', agentBusy: false })).toEqual(starting);
    // The hand-over happened during the stop: the stop no longer carries it.
    const handed = next(s, { on: 'start-ended', agentBusy: true });
    expect(handed).toEqual({ is: 'stopping' });
    expect(next(handed, { on: 'stop-ended', agentBusy: true })).toEqual({ is: 'running' });
    expect(next(handed, { on: 'stop-ended', agentBusy: false })).toEqual({ is: 'idle' });
  });

  it('a second stop while one runs changes nothing; the first to end ends the stopping', () => {
    const s = next({ is: 'running' }, { on: 'stop' });
    expect(next(s, { on: 'stop' })).toBe(s);
    const ended = next(s, { on: 'stop-ended', agentBusy: false });
    expect(next(ended, { on: 'stop-ended', agentBusy: true })).toBe(ended);
  });

  it('a release asked while busy is owed through every state, carried out when a turn ends with the agent free', () => {
    let s = next(starting, { on: 'release-asked', reason: 'model changed' });
    expect(s).toEqual({ ...starting, release: 'model changed' });
    s = next(s, { on: 'start-ended', agentBusy: true });
    expect(s).toEqual({ is: 'running', release: 'model changed' });
    expect(next(s, { on: 'turn-ended', agentFree: false })).toBe(s);
    s = next(s, { on: 'turn-ended', agentFree: true });
    expect(s).toEqual({ is: 'releasing' });
    expect(mayStart(s)).toBe(true);
    expect(next(s, { on: 'released' })).toEqual({ is: 'idle' });
  });

  it('a release due while a start or a stop is under way runs beside it: the state forgets that it is owed', () => {
    const owed = { release: 'model changed' };
    expect(next({ ...starting, ...owed }, { on: 'turn-ended', agentFree: true })).toEqual(starting);
    expect(next({ is: 'stopping', ...owed }, { on: 'turn-ended', agentFree: true })).toEqual({ is: 'stopping' });
    // A release that ended after a start began leaves the start alone.
    expect(next(starting, { on: 'released' })).toBe(starting);
  });

  it('a start that failed keeps the release it owes (carried out at the next turn end)', () => {
    const s = next({ ...starting, release: 'model changed' }, { on: 'start-ended', agentBusy: false });
    expect(s).toEqual({ is: 'idle', release: 'model changed' });
    expect(next(s, { on: 'turn-ended', agentFree: true })).toEqual({ is: 'releasing' });
  });
});
