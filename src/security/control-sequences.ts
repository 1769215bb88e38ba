/**
 * Removes terminal control sequences from text a person sent, before it is typed or pasted into
 * a pane: bracketed-paste markers (ESC[200~ / ESC[201~ and the 8-bit CSI forms) would end a paste
 * early, and any other ESC / CSI / OSC / DCS sequence or C0 / C1 control could drive the TUI.
 * Kept: printable text, \n and \t. A CR or CRLF becomes \n, since it was a line break to the sender.
 * A single forward scan: linear time, no regular expressions.
 */

const ESC = 0x1b;
const BEL = 0x07;
const CSI_8BIT = 0x9b;
const ST_8BIT = 0x9c;
/** 8-bit introducers of string sequences that run until ST: DCS, SOS, OSC, PM, APC. */
const STRING_8BIT = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
/** Characters after ESC that open a string sequence: DCS P, SOS X, OSC ], PM ^, APC _. */
const STRING_7BIT = new Set(['P', 'X', ']', '^', '_'].map((c) => c.charCodeAt(0)));

const isControl = (c: number) => c < 0x20 || (c >= 0x7f && c <= 0x9f);

/** Index just past a CSI body starting at i (parameters, intermediates, one final byte). */
function skipCsi(text: string, i: number): number {
  let j = i;
  while (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++;
  while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  const final = text.charCodeAt(j);
  return final >= 0x40 && final <= 0x7e ? j + 1 : j;
}

export function stripControlSequences(text: string): string {
  const input = text.replace(/\r\n?/g, '\n');
  let out = '';
  let plainStart = 0;
  // Earliest index known to have no string terminator after it; keeps repeated unterminated OSC linear.
  let noTerminatorFrom = Infinity;

  /** Index just past the terminator (BEL, ESC \, 8-bit ST) of a string sequence, or -1 if none. */
  const findTerminator = (from: number): number => {
    if (from >= noTerminatorFrom) return -1;
    for (let j = from; j < input.length; j++) {
      const c = input.charCodeAt(j);
      if (c === BEL || c === ST_8BIT) return j + 1;
      if (c === ESC && input.charCodeAt(j + 1) === 0x5c) return j + 2;
    }
    noTerminatorFrom = from;
    return -1;
  };

  let i = 0;
  while (i < input.length) {
    const c = input.charCodeAt(i);
    if (!isControl(c) || c === 0x0a || c === 0x09) {
      i++;
      continue;
    }
    out += input.slice(plainStart, i);
    let next = i + 1;
    if (c === CSI_8BIT) next = skipCsi(input, i + 1);
    else if (STRING_8BIT.has(c)) {
      const end = findTerminator(i + 1);
      // Unterminated: drop only the introducer, so the words after it are not lost.
      if (end > 0) next = end;
    } else if (c === ESC) {
      const d = input.charCodeAt(i + 1);
      if (d === 0x5b) next = skipCsi(input, i + 2);
      else if (STRING_7BIT.has(d)) {
        const end = findTerminator(i + 2);
        next = end > 0 ? end : i + 2;
      } else if (d >= 0x20 && d <= 0x2f) {
        // nF escape (charset designation like ESC ( B): intermediates, then one final byte.
        let j = i + 1;
        while (j < input.length && input.charCodeAt(j) >= 0x20 && input.charCodeAt(j) <= 0x2f) j++;
        const f = input.charCodeAt(j);
        next = f >= 0x30 && f <= 0x7e ? j + 1 : j;
      } else if (d >= 0x30 && d <= 0x7e) next = i + 2;
    }
    i = next;
    plainStart = next;
  }
  return out + input.slice(plainStart);
}
