/** Whether a message may go into the running turn (src/gateway/lane/steer.ts). */
import { describe, expect, it } from 'vitest';
import { RAN_AS_TURN } from '../../../../src/gateway/lane/decide.js';
import { ranAsTurnReason, type SteerView, steerBlocker } from '../../../../src/gateway/lane/steer.js';

const view = (over: Partial<SteerView> = {}): SteerView => ({
  steeringOn: true,
  steeringOffReason: undefined,
  canSteer: true,
  turnId: 't1',
  turnSender: 'ana',
  sender: 'ana',
  ...over,
});

describe('steerBlocker', () => {
  it("steers into the same sender's turn, a turn waiting for its commit, or one the agent started itself", () => {
    expect(steerBlocker(view())).toBeUndefined();
    expect(steerBlocker(view({ turnSender: undefined }))).toBeUndefined();
  });

  it('says why not, in order: steering off, a backend that cannot, no turn yet, another sender', () => {
    expect(steerBlocker(view({ steeringOn: false, canSteer: false }))).toBe('steering is off (config)');
    expect(steerBlocker(view({ steeringOn: false, steeringOffReason: 'RUDDER_NO_STEER' }))).toBe(
      'steering is off (RUDDER_NO_STEER)',
    );
    expect(steerBlocker(view({ canSteer: false, turnId: undefined }))).toBe(
      'this backend cannot take a message mid-turn',
    );
    expect(steerBlocker(view({ turnId: undefined }))).toBe('no turn is running yet');
    expect(steerBlocker(view({ sender: 'bo' }))).toBe("the running turn is another sender's");
  });
});

describe('ranAsTurnReason', () => {
  it("uses the backend's words when it gives them", () => {
    expect(ranAsTurnReason(undefined)).toBe(RAN_AS_TURN);
    expect(ranAsTurnReason('the turn had ended')).toBe('ran as the next turn (the turn had ended)');
  });
});
