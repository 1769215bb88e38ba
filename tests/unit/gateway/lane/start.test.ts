/** Starting a turn, decided (src/gateway/lane/start.ts): the inputs, the hand-over after the commit, a failure. */
import { describe, expect, it } from 'vitest';
import { RudderError } from '../../../../src/errors.js';
import { decideHandOver, decideStartFailure, turnInputs } from '../../../../src/gateway/lane/start.js';
import { row } from '../../../support/lane-rows.js';

describe('turnInputs', () => {
  it("gives each input its text, its source and a re-run's note, and heads an overflow turn", () => {
    const rows = [row('a', { text: 'one' }), row('b', { text: 'two', senderId: 'bo' })];
    const inputs = turnInputs(rows, true, (r) => (r.id === 'b' ? { note: 'run again' } : {}));
    expect(inputs).toEqual([
      {
        id: 'a',
        text: '[2 messages arrived while the queue was full; they are merged here]\n\none',
        source: 'web:owner',
      },
      { id: 'b', text: 'two', source: 'web:bo', note: 'run again' },
    ]);
    expect(turnInputs(rows.slice(0, 1), false, () => ({}))[0]!.text).toBe('one');
  });
});

describe('decideHandOver', () => {
  const rows = [row('a'), row('b')];

  it('hands over what is still running; a stop since the write narrows or discards the turn', () => {
    expect(decideHandOver(rows, () => 'running')).toEqual({ do: 'hand-over' });
    expect(decideHandOver(rows, (id) => (id === 'a' ? 'stopped' : 'running'))).toEqual({
      do: 'narrow',
      live: [rows[1]],
    });
    expect(decideHandOver(rows, () => 'stopped')).toEqual({ do: 'discard' });
  });
});

describe('decideStartFailure', () => {
  it('fails what no agent can start; holds a lost machine only at the hand-over; else first in line again', () => {
    expect(decideStartFailure(new RudderError('PROJECT_UNAVAILABLE', 'gone'), false)).toBe('cannot-start');
    expect(decideStartFailure(new RudderError('SESSION_HELD', 'held'), true)).toBe('cannot-start');
    expect(decideStartFailure(new RudderError('AGENT_UNREACHABLE', 'lost'), true)).toBe('unreachable');
    expect(decideStartFailure(new RudderError('AGENT_UNREACHABLE', 'lost'), false)).toBe('in-front');
    expect(decideStartFailure(new RudderError('AGENT_BUSY'), true)).toBe('in-front');
    expect(decideStartFailure(new Error('anything else'), true)).toBe('in-front');
  });
});
