/**
 * The stdout reader, fuzzed: valid frames survive any split of the byte stream into chunks
 * (inside a multi-byte character too), and arbitrary bytes in arbitrary chunks never throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, parseLine } from '../../../../../src/agents/claude/protocol/parse.js';

/** Cuts bytes at the given positions (taken modulo the length, sorted). */
function cut(bytes: Uint8Array, at: number[]): Uint8Array[] {
  const points = [...new Set(at.map((p) => (bytes.length ? p % bytes.length : 0)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let prev = 0;
  for (const p of [...points, bytes.length]) {
    chunks.push(bytes.subarray(prev, p));
    prev = p;
  }
  return chunks;
}

const frame = fc.oneof(
  fc.record({
    type: fc.constant('assistant'),
    message: fc.record({
      role: fc.constant('assistant'),
      content: fc.array(fc.record({ type: fc.constant('text'), text: fc.string({ unit: 'grapheme' }) }), {
        maxLength: 3,
      }),
    }),
  }),
  fc.record({
    type: fc.constant('result'),
    subtype: fc.string(),
    is_error: fc.boolean(),
    result: fc.string({ unit: 'grapheme' }),
    session_id: fc.uuid(),
  }),
  fc.record({ type: fc.constant('mystery'), payload: fc.jsonValue() }),
);

describe('LineSplitter, fuzzed', () => {
  it('gives back every frame, whatever the chunking', () => {
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 20 }), (frames, at) => {
        const bytes = new TextEncoder().encode(frames.map((f) => JSON.stringify(f) + '\n').join(''));
        const splitter = new LineSplitter();
        const lines = cut(bytes, at).flatMap((c) => splitter.push(c).lines);
        expect(splitter.end()).toBeUndefined();
        expect(lines.map((l) => JSON.parse(l))).toEqual(frames.map((f) => JSON.parse(JSON.stringify(f))));
        for (const l of lines) expect(parseLine(l).kind).toBe('frame');
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary bytes in arbitrary chunks', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.array(fc.nat(), { maxLength: 30 }), (bytes, at) => {
        const splitter = new LineSplitter(256);
        for (const c of cut(bytes, at)) for (const l of splitter.push(c).lines) parseLine(l);
        const tail = splitter.end();
        if (tail !== undefined) parseLine(tail);
      }),
      { numRuns: 500 },
    );
  });
});
