/** What a turn's end means for each input (src/gateway/lane/decide.ts): pure decisions. */
import { describe, expect, it } from 'vitest';
import { decideError, decideResult, MAX_ATTEMPTS, RAN_AS_TURN } from '../../../../src/gateway/lane/decide.js';
import type { MessageRow } from '../../../../src/store/types.js';

const none = new Set<string>();
const facts = (over: Partial<Parameters<typeof decideResult>[1]> = {}) => ({
  absorbed: none,
  merged: none,
  ranAsTurn: new Map<string, string>(),
  stale: none,
  stopping: false,
  ...over,
});
const row = (id: string, attempts: number) => ({ id, attempts }) as MessageRow;

describe('decideResult', () => {
  it('answers the first input, and says which were steered in, merged, or ran as a turn of their own', () => {
    const d = decideResult(
      { inputIds: ['a', 'b', 'c', 'd'], interrupted: false },
      facts({ absorbed: new Set(['b']), merged: new Set(['c']), ranAsTurn: new Map([['d', RAN_AS_TURN]]) }),
    );
    expect(d.outcomes).toEqual([
      { id: 'a', as: 'answer', reason: null },
      { id: 'b', as: 'steered', reason: null },
      { id: 'c', as: 'merge', reason: null },
      { id: 'd', as: 'answer', reason: RAN_AS_TURN },
    ]);
    expect(d.answered).toEqual(['a', 'b', 'c', 'd']);
    expect([d.turn, d.steps]).toEqual(['answered', 'answered']);
  });

  it('stops an interrupted turn ("stopped on request" during a /stop, else "interrupted"), replying to none', () => {
    for (const stopping of [true, false]) {
      const d = decideResult({ inputIds: ['a'], interrupted: true }, facts({ stopping }));
      expect(d.outcomes).toEqual([{ id: 'a', as: 'stop', reason: stopping ? 'stopped on request' : 'interrupted' }]);
      expect(d.answered).toEqual([]);
      expect([d.turn, d.steps]).toEqual(['interrupted', 'stopped']);
    }
  });

  it('stops inputs sent before the /stop cutoff even when the turn answered; only the rest get the reply', () => {
    const d = decideResult({ inputIds: ['old', 'new'], interrupted: false }, facts({ stale: new Set(['old']) }));
    expect(d.outcomes).toEqual([
      { id: 'old', as: 'stop', reason: 'stopped on request' },
      { id: 'new', as: 'answer', reason: null },
    ]);
    expect(d.answered).toEqual(['new']);
    const all = decideResult({ inputIds: ['old'], interrupted: false }, facts({ stale: new Set(['old']) }));
    expect([all.answered, all.turn]).toEqual([[], 'interrupted']);
  });
});

describe('decideError', () => {
  it('holds on a rate limit or a terminal that did not take the message', () => {
    expect(decideError('AGENT_RATE_LIMITED', [], () => 0, false).kind).toBe('rate-limited');
    expect(decideError('AGENT_NOT_READY', [], () => 0, false).kind).toBe('held-back');
    expect(decideError('AGENT_UNDELIVERED', [], () => 0, false).kind).toBe('held-back');
  });

  it('keeps inputs open through a shutdown, and ends them on a stop otherwise', () => {
    expect(decideError('AGENT_STOPPED', [], () => 0, true).kind).toBe('keep-open');
    expect(decideError('AGENT_STOPPED', [], () => 0, false).kind).toBe('stopped');
  });

  it('runs a cut-off turn again once, then fails it; a session that cannot be resumed is forgotten', () => {
    const rows = [row('first', 1), row('again', MAX_ATTEMPTS)];
    for (const code of ['AGENT_CRASHED', 'AGENT_EOF_WITHOUT_RESULT', 'AGENT_STDIN_BROKEN', 'AGENT_SESSION_NOT_FOUND']) {
      const d = decideError(code, rows, (r) => r.attempts, false);
      if (d.kind !== 'rerun-or-fail') throw new Error(code);
      expect([d.again.map((r) => r.id), d.failed.map((r) => r.id)]).toEqual([['first'], ['again']]);
      expect(d.forgetSession).toBe(code === 'AGENT_SESSION_NOT_FOUND');
    }
  });

  it('fails other errors at once, whatever the attempts', () => {
    const d = decideError('AGENT_TURN_TIMEOUT', [row('a', 0)], () => 0, false);
    expect(d).toEqual({ kind: 'rerun-or-fail', again: [], failed: [row('a', 0)], forgetSession: false });
  });
});
