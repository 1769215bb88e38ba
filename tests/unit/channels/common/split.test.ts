import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitParts, splitMarkdown } from '../../../../src/channels/common/split.js';

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})/;
const contentLines = (parts: string[]) =>
  parts.flatMap((p) => p.split('\n')).filter((l) => l.trim() !== '' && !FENCE_LINE.test(l));
const fenceCount = (s: string) => s.split('\n').filter((l) => FENCE_LINE.test(l)).length;

/** Markdown-ish documents: paragraphs and fenced code blocks of short lines. */
const word = fc.stringMatching(/^[a-z<>&*_]{1,8}$/);
const line = fc.array(word, { minLength: 1, maxLength: 8 }).map((ws) => ws.join(' '));
const paragraph = fc.array(line, { minLength: 1, maxLength: 6 }).map((ls) => ls.join('\n'));
const codeBlock = fc
  .tuple(fc.constantFrom('', 'ts', 'python', 'sh'), fc.array(line, { minLength: 1, maxLength: 30 }))
  .map(([lang, ls]) => '```' + lang + '\n' + ls.join('\n') + '\n```');
const doc = fc.array(fc.oneof(paragraph, codeBlock), { minLength: 1, maxLength: 12 }).map((bs) => bs.join('\n\n'));

/** Lines past any limit used below: many words, or one word with no space to cut at. */
const longLine = fc.oneof(
  fc.array(word, { minLength: 80, maxLength: 250 }).map((ws) => ws.join(' ')),
  fc.stringMatching(/^[a-z]{601,1500}$/),
);
const anyLine = fc.oneof({ arbitrary: line, weight: 4 }, { arbitrary: longLine, weight: 1 });
/** ~~~ fences, and ```` fences whose body holds ``` lines that must not close them. */
const otherFence = fc
  .tuple(
    fc.constantFrom('~~~', '````', '~~~~'),
    fc.constantFrom('', 'ts', 'md'),
    fc.array(
      fc.oneof({ arbitrary: anyLine, weight: 5 }, { arbitrary: fc.constantFrom('```', '```js', '~~'), weight: 1 }),
      { minLength: 1, maxLength: 30 },
    ),
  )
  .map(([fence, lang, ls]) => fence + lang + '\n' + ls.join('\n') + '\n' + fence);
const wideParagraph = fc.array(anyLine, { minLength: 1, maxLength: 6 }).map((ls) => ls.join('\n'));
const wideCode = fc
  .tuple(fc.constantFrom('', 'ts'), fc.array(anyLine, { minLength: 1, maxLength: 20 }))
  .map(([lang, ls]) => '```' + lang + '\n' + ls.join('\n') + '\n```');
const wideDoc = fc
  .array(fc.oneof(wideParagraph, wideCode, otherFence, codeBlock), { minLength: 1, maxLength: 10 })
  .map((bs) => bs.join('\n\n'));

/** True when every fence a part opens is closed by a line of the same character, at least as long. */
function fencesClose(part: string): boolean {
  let open: string | undefined;
  for (const l of part.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(l);
    if (!m) continue;
    if (open === undefined) open = m[1];
    else if (m[1]![0] === open[0] && m[1]!.length >= open.length && m[2]!.trim() === '') open = undefined;
  }
  return open === undefined;
}
/** The text without fence lines and whitespace: what must survive a split, in order. */
const letters = (parts: string[]) =>
  parts
    .flatMap((p) => p.split('\n'))
    .filter((l) => !/^ {0,3}(`{3,}|~{3,})[\w]*$/.test(l))
    .join('')
    .replace(/\s+/g, '');

describe('splitMarkdown', () => {
  it('returns short text untouched', () => {
    expect(splitMarkdown('hello\n\nworld', 100)).toEqual(['hello\n\nworld']);
  });

  it('closes a code block at the cut and reopens it with the same language tag', () => {
    const code = Array.from({ length: 40 }, (_, i) => `let x${i} = ${i};`).join('\n');
    const parts = splitMarkdown(`Intro line.\n\n\`\`\`ts\n${code}\n\`\`\`\n\nOutro.`, 200);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts[0]!.startsWith('Intro line.\n\n```ts\n')).toBe(true);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(200);
      expect(fenceCount(p) % 2).toBe(0);
    }
    for (const p of parts.slice(1, -1)) expect(p.startsWith('```ts\n')).toBe(true);
    expect(parts[parts.length - 1]!.endsWith('```\n\nOutro.') || parts[parts.length - 1] === 'Outro.').toBe(true);
  });

  it('never splits a surrogate pair', () => {
    const parts = splitMarkdown('😀'.repeat(100), 17);
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(17);
      expect(lone.test(p)).toBe(false);
    }
    expect(parts.join('')).toBe('😀'.repeat(100));
  });

  it('property: parts fit, fences balance in every part, and no content is lost or reordered', () => {
    fc.assert(
      fc.property(doc, fc.integer({ min: 100, max: 600 }), (text, limit) => {
        const parts = splitMarkdown(text, limit);
        for (const p of parts) {
          expect(p.length).toBeLessThanOrEqual(limit);
          expect(fenceCount(p) % 2).toBe(0);
        }
        expect(contentLines(parts)).toEqual(contentLines([text]));
      }),
      { numRuns: 300 },
    );
  });

  it(
    'property: with lines past the limit and ~~~ / ```` fences, parts fit, fences close, and no text is ' +
      'lost or reordered',
    () => {
      fc.assert(
        fc.property(wideDoc, fc.integer({ min: 100, max: 600 }), (text, limit) => {
          const parts = splitMarkdown(text, limit);
          for (const p of parts) {
            expect(p.length).toBeLessThanOrEqual(limit);
            expect(fencesClose(p)).toBe(true);
          }
          expect(letters(parts)).toEqual(letters([text]));
        }),
        { numRuns: 300 },
      );
    },
  );
});

describe('fitParts', () => {
  it('re-splits parts whose rendered form grows past the limit', () => {
    const escapeAmp = (s: string) => s.replace(/&/g, '&amp;');
    const text = Array.from({ length: 50 }, () => '&&&& &&&& &&&&').join('\n');
    const parts = fitParts(text, 120, escapeAmp);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(120);
    expect(parts.join('\n').replace(/&amp;/g, '&').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
  });
});
