/** The diff of an edit on the page (web/src/diff.ts): changed lines marked, a little context kept. */
import { describe, expect, it } from 'vitest';
import { lineDiff, withContext } from '../../../web/src/diff.js';

describe('edit diff', () => {
  it('marks changed lines and keeps a little context around them', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join('\n');
    const after = ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h', 'i', 'j', 'k'].join('\n');
    const lines = lineDiff(before, after);
    expect(lines.filter((l) => l.type !== ' ').map((l) => `${l.type}${l.text}`)).toEqual(['-e', '+E', '+k']);
    const shown = withContext(lines, 1);
    expect(shown.map((l) => (l ? `${l.type}${l.text}` : '…'))).toEqual([' d', '-e', '+E', ' f', '…', ' j', '+k']);
    expect(lineDiff('', 'new file\nline 2').map((l) => l.type)).toEqual(['+', '+']);
  });
});
