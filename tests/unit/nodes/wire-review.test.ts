/** The review members of the wire: a node reads a review query only with what its step needs, never throwing. */
import { describe, expect, it } from 'vitest';
import { isRudderError } from '../../../src/errors.js';
import { encode, parseReviewQuery, type QueryAnswer, reviewResultOf } from '../../../src/nodes/wire.js';

const base = { type: 'review', conversationId: 'web:c-1', project: 'repo' };
const text = (v: unknown) => JSON.stringify(v);

describe('parseReviewQuery', () => {
  it('reads every step with what it needs', () => {
    const steps = [
      { step: 'view' },
      { step: 'file-diff', ref: { section: 'unstaged', path: 'a.txt' } },
      { step: 'file-diff', ref: { section: 'committed', path: 'b.txt', oldPath: 'a.txt' } },
      { step: 'base-change', files: ['a.txt'] },
      { step: 'commit', message: 'Fix the parser' },
      { step: 'merge' },
      { step: 'push', which: 'branch' },
      { step: 'push', which: 'base' },
      { step: 'pull-request-available' },
      { step: 'pull-request' },
      { step: 'pull-request', title: 'T', body: 'B', draft: true },
      { step: 'discard-preview' },
      { step: 'discard', confirm: 'tok' },
    ];
    for (const s of steps) expect(parseReviewQuery(encode({ ...base, ...s } as never))).toEqual({ ...base, ...s });
  });

  it('refuses a step without its fields, of the wrong type, or unknown', () => {
    const bad = [
      { step: 'file-diff' },
      { step: 'file-diff', ref: { section: 'elsewhere', path: 'a.txt' } },
      { step: 'file-diff', ref: { section: 'unstaged', path: 3 } },
      { step: 'file-diff', ref: { section: 'unstaged', path: 'a', oldPath: 1 } },
      { step: 'base-change', files: 'a.txt' },
      { step: 'commit' },
      { step: 'commit', message: 7 },
      { step: 'push' },
      { step: 'push', which: 'everything' },
      { step: 'pull-request', draft: 'yes' },
      { step: 'discard' },
      { step: 'rm-rf' },
      {},
    ];
    for (const s of bad) expect(parseReviewQuery(text({ ...base, ...s })), JSON.stringify(s)).toBeUndefined();
  });

  it('is undefined for other queries, a review without its project, and text that is not JSON', () => {
    expect(parseReviewQuery(text({ type: 'sessions', conversationId: 'c', project: 'p', limit: 5 }))).toBeUndefined();
    expect(parseReviewQuery(text({ type: 'review', conversationId: 'c', step: 'view' }))).toBeUndefined();
    expect(parseReviewQuery(text({ type: 'review', project: 'p', step: 'view' }))).toBeUndefined();
    expect(parseReviewQuery('{not json')).toBeUndefined();
    expect(parseReviewQuery(text([base]))).toBeUndefined();
  });
});

describe('reviewResultOf', () => {
  it("gives the step's result, or throws the node's error with its code", () => {
    const view = { changes: {}, readOnly: false, busy: false, acting: null, push: { remote: 'origin' } };
    expect(reviewResultOf({ ok: true, review: view } as QueryAnswer, 'view')).toBe(view);
    const refused: QueryAnswer = {
      ok: false,
      error: { code: 'REVIEW_BUSY', message: 'A turn is running.', context: { conversationId: 'web:c-1' } },
    };
    const err = (() => {
      try {
        reviewResultOf(refused, 'commit');
      } catch (e) {
        return e;
      }
    })();
    expect(isRudderError(err, 'REVIEW_BUSY')).toBe(true);
    expect((err as Error).message).toBe('A turn is running.');
  });

  it('an unknown code from the node, or an answer of another kind, is an error too', () => {
    const odd: QueryAnswer = { ok: false, error: { code: 'NO_SUCH_CODE', message: 'x', context: {} } };
    expect(() => reviewResultOf(odd, 'merge')).toThrow(expect.objectContaining({ code: 'AGENT_TURN_FAILED' }));
    expect(() => reviewResultOf({ ok: true, has: true }, 'merge')).toThrow(/not one Rudder reads/);
  });
});
