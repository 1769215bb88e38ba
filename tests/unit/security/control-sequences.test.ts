import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripControlSequences } from '../../../src/security/control-sequences.js';

const isForbidden = (c: number) => (c < 0x20 && c !== 0x0a && c !== 0x09) || (c >= 0x7f && c <= 0x9f);

describe('stripControlSequences', () => {
  it.each([
    ['7-bit paste end', 'a\x1b[201~b', 'ab'],
    ['7-bit paste start and end', '\x1b[200~x\x1b[201~', 'x'],
    ['8-bit paste end', '\x9b201~x', 'x'],
    ['8-bit paste start', 'y\x9b200~', 'y'],
    ['SGR colour', '\x1b[38;5;246mgrey\x1b[0m', 'grey'],
    ['OSC title ended by BEL', '\x1b]0;title\x07after', 'after'],
    ['OSC 8 hyperlink ended by ESC \\', '\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\', 'link'],
    ['8-bit OSC ended by 8-bit ST', '\x9d0;t\x9cz', 'z'],
    ['DCS', '\x1bPq#0\x1b\\x', 'x'],
    ['charset designation', '\x1b(Bx', 'x'],
    ['reset', '\x1bcx', 'x'],
    ['unterminated OSC keeps the words after it', '\x1b]no end', 'no end'],
    ['lone ESC at the end', 'x\x1b', 'x'],
    ['C0, DEL and C1 controls', 'a\x00\x07\x08\x7f\x85\x9cb', 'ab'],
    ['tabs and newlines kept', 'tab\tnew\nline', 'tab\tnew\nline'],
    ['CR and CRLF become LF', 'cr\r\nlf\rx', 'cr\nlf\nx'],
    ['unicode kept, NBSP included', '❯\u00a0é 😀 ─', '❯\u00a0é 😀 ─'],
    ['ESC[201~ split by another sequence cannot re-form', '\x1b[20\x1b[0m1~', '1~'],
  ])('%s', (_name, input, expected) => {
    expect(stripControlSequences(input)).toBe(expected);
  });

  it('leaves no ESC, CSI or other control character in any output, and is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const out = stripControlSequences(text);
        for (let i = 0; i < out.length; i++) expect(isForbidden(out.charCodeAt(i))).toBe(false);
        expect(stripControlSequences(out)).toBe(out);
      }),
      { numRuns: 3000 },
    );
  });

  it('does not touch text without controls', () => {
    const hasControl = (t: string) =>
      Array.from({ length: t.length }, (_, i) => t.charCodeAt(i)).some((c) => isForbidden(c) || c === 0x0d);
    const clean = fc.string({ unit: 'grapheme' }).filter((t) => !hasControl(t));
    fc.assert(
      fc.property(clean, (text) => {
        expect(stripControlSequences(text)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('stays linear on hostile input (timing printed, not asserted)', () => {
    for (const unit of ['\x1b]', '\x1b[', '\x9b', '\x1bP', 'a\x1b[201~']) {
      const text = unit.repeat(Math.floor(1_000_000 / unit.length));
      const started = performance.now();
      const out = stripControlSequences(text);
      console.log(
        `stripControlSequences on ${JSON.stringify(unit)} x ${text.length / unit.length}: ` +
          `${(performance.now() - started).toFixed(1)} ms`,
      );
      expect(out.includes('\x1b')).toBe(false);
    }
  });
});
