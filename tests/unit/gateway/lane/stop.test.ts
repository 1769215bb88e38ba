/** /stop and /clear, decided (src/gateway/lane/stop.ts): what the cutoff ends. */
import { describe, expect, it } from 'vitest';
import {
  droppedByStop,
  leftoversOf,
  sentBefore,
  splitByCutoff,
  staleInputs,
} from '../../../../src/gateway/lane/stop.js';
import { row } from '../../../support/lane-rows.js';

describe('a stop', () => {
  it('ends what was sent before its cutoff: the send time when known, else the arrival', () => {
    expect(sentBefore(row('a', { sentAt: 900, receivedAt: 2_000 }), 1_000)).toBe(true);
    expect(sentBefore(row('b', { sentAt: null, receivedAt: 1_000 }), 1_000)).toBe(false);
    expect(sentBefore(row('c'), 0)).toBe(false);
    const [old, late] = [row('old', { sentAt: 500 }), row('late', { sentAt: 1_500 })];
    expect(splitByCutoff([old, late], 1_000)).toEqual({ ended: [old], kept: [late] });
  });

  it('drops the held messages not also in line, then the line', () => {
    const [a, b, c] = [row('a'), row('b'), row('c')];
    expect(droppedByStop([a, b], [b, c]).map((r) => r.id)).toEqual(['a', 'b', 'c']);
  });

  it("sweeps inputs handed over that the agent's current turn does not run", () => {
    expect(leftoversOf([row('a'), row('b')], ['b']).map((r) => r.id)).toEqual(['a']);
  });

  it('finds inputs sent before the cutoff only in a turn that began after it, reading rows only then', () => {
    const rows = () => [row('old', { sentAt: 500 }), row('new', { sentAt: 1_500 })];
    expect(staleInputs(1_000, 2_000, rows)).toEqual(new Set(['old']));
    const never = () => {
      throw new Error('not read');
    };
    expect(staleInputs(1_000, 1_000, never)).toEqual(new Set());
    expect(staleInputs(0, 2_000, never)).toEqual(new Set());
  });
});
