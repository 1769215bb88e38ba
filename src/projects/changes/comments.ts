/**
 * Line comments on a diff, made into one message for the agent: file, line (or range), the code
 * quoted from the diff itself (never from the page, so it is what the file holds), the comment.
 * The gateway sends the text through its normal intake, which sanitises and wraps it.
 */
import { parseHunks } from './parse.js';
import type { Section } from './types.js';

export interface LineComment {
  path: string;
  section: Section;
  /** Which side's numbers line and endLine are: the new file (added and context lines) or the old one. */
  side: 'new' | 'old';
  line: number;
  endLine?: number;
  text: string;
}

export interface NumberedLine {
  old: number | null;
  new: number | null;
  /** The line as the diff shows it, its first character the marker (" ", "+", "-"). */
  text: string;
}

/** Each hunk line of a file's diff with its line numbers on either side. */
export function numberedLines(diff: string): NumberedLine[] {
  const out: NumberedLine[] = [];
  for (const h of parseHunks(diff)) {
    const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(h.header);
    if (!m) continue;
    let o = Number(m[1]);
    let n = Number(m[2]);
    for (const l of h.lines) {
      if (l.startsWith('\\')) continue; // "\ No newline at end of file"
      if (l.startsWith('+')) out.push({ old: null, new: n++, text: l });
      else if (l.startsWith('-')) out.push({ old: o++, new: null, text: l });
      else out.push({ old: o++, new: n++, text: l });
    }
  }
  return out;
}

/** The diff lines a comment points at, or undefined when they are not in the diff. */
export function quoteLines(diff: string, side: 'new' | 'old', line: number, endLine = line): string[] | undefined {
  const [from, to] = line <= endLine ? [line, endLine] : [endLine, line];
  const picked = numberedLines(diff).filter((l) => {
    const at = side === 'new' ? l.new : l.old;
    return at !== null && at >= from && at <= to;
  });
  return picked.length ? picked.map((l) => l.text) : undefined;
}

const MAX_QUOTE_LINES = 20;

/** The comments as one message; diffOf gives each file's diff in its section (undefined: not in the change set). */
export function commentsMessage(comments: LineComment[], diffOf: (c: LineComment) => string | undefined): string {
  const parts = comments.map((c, i) => {
    const range = c.endLine !== undefined && c.endLine !== c.line ? `lines ${c.line}–${c.endLine}` : `line ${c.line}`;
    const where = `${i + 1}. ${c.path}, ${range}${c.side === 'old' ? ' (before the change)' : ''}`;
    const diff = diffOf(c);
    const quoted = diff === undefined ? undefined : quoteLines(diff, c.side, c.line, c.endLine);
    const shown = quoted?.slice(0, MAX_QUOTE_LINES) ?? [];
    const more = quoted && quoted.length > shown.length ? [`> … ${quoted.length - shown.length} more lines`] : [];
    const quote = quoted ? [...shown.map((l) => `> ${l}`), ...more] : ['(that line is no longer in the diff)'];
    return [where, ...quote, c.text.trim()].join('\n');
  });
  const n = comments.length;
  return [`Review comments on your changes (${n} comment${n === 1 ? '' : 's'}):`, ...parts].join('\n\n');
}
