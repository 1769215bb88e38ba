/**
 * What the input box holds, read from an escaped capture (`capture-pane -p -e`). In a plain
 * capture a placeholder (`❯ Resend your message to try again`, `❯ Press up to edit queued
 * messages`) looks exactly like typed text; only its dim attribute (SGR 2) tells them apart.
 */

import { stripControlSequences } from '../../../security/control-sequences.js';
import { findLayout } from './pane-layout.js';
import { isBlank, tailLines, trimEndSpaces } from './pane-lines.js';

export interface InputLineContent {
  /** The box shows dim placeholder text and nothing typed. */
  placeholder: boolean;
  /** Characters after the prompt that are neither dim nor the reverse-video cursor. */
  typedChars: number;
}

interface Attrs {
  dim: boolean;
  reverse: boolean;
}

/** Applies one SGR parameter list (`ESC[...m`) to the attributes; colour arguments are skipped. */
function applySgr(params: string, attrs: Attrs): void {
  const codes = params === '' ? [0] : params.split(';').map((p) => (p === '' ? 0 : Number(p)));
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i];
    if (code === 0) (attrs.dim = false), (attrs.reverse = false);
    else if (code === 2) attrs.dim = true;
    else if (code === 22) attrs.dim = false;
    else if (code === 7) attrs.reverse = true;
    else if (code === 27) attrs.reverse = false;
    // 38/48/58;5;N and 38/48/58;2;R;G;B carry arguments that are not attributes.
    else if (code === 38 || code === 48 || code === 58) i += codes[i + 1] === 5 ? 2 : codes[i + 1] === 2 ? 4 : 0;
  }
}

/** Reads one escaped line: counts dim and plain visible characters after the first `skip` ones. */
function readAttributes(line: string, skip: number): { dim: number; plain: number } {
  const attrs: Attrs = { dim: false, reverse: false };
  let visible = 0;
  let dim = 0;
  let plain = 0;
  for (let i = 0; i < line.length; i++) {
    if (line.charCodeAt(i) === 0x1b && line[i + 1] === '[') {
      let j = i + 2;
      while (j < line.length && line.charCodeAt(j) >= 0x30 && line.charCodeAt(j) <= 0x3f) j++;
      if (line[j] === 'm') applySgr(line.slice(i + 2, j), attrs);
      i = j;
      continue;
    }
    const ch = line[i]!;
    if (visible++ < skip || isBlank(ch)) continue;
    if (attrs.dim) dim++;
    else if (!attrs.reverse) plain++;
  }
  return { dim, plain };
}

/** Reads the input line of a live box from an escaped capture; undefined when there is no box. */
export function readInputLine(ansiCapture: string): InputLineContent | undefined {
  if (typeof ansiCapture !== 'string') return undefined;
  const escaped = ansiCapture.split('\n').slice(-200);
  while (escaped.length && isBlank(stripControlSequences(escaped[escaped.length - 1]!))) escaped.pop();
  const plain = tailLines(ansiCapture);
  const layout = findLayout(plain);
  if (layout.kind !== 'box' || layout.anchor === undefined) return undefined;
  // tailLines keeps the last lines; align its indices with the escaped lines from the end.
  const index = escaped.length - plain.length + layout.anchor + 1;
  const line = escaped[index];
  if (line === undefined || trimEndSpaces(stripControlSequences(line)) !== plain[layout.anchor + 1]) return undefined;
  // Skip the prompt glyph and its NBSP.
  const { dim, plain: typed } = readAttributes(line, 2);
  return { placeholder: dim > 0 && typed === 0, typedChars: typed };
}

/** True when the box shows only placeholder text: nothing the user or we typed is waiting in it. */
export function hasPlaceholderInput(ansiCapture: string): boolean {
  return readInputLine(ansiCapture)?.placeholder ?? false;
}

/** A paste the TUI folded into one token: `[Pasted text #2 +3 lines]`. */
const FOLDED_PASTE = /^\[Pasted text #\d+(?: \+\d+ lines?)?\]$/;

/**
 * Whether the box holds exactly what Rudder pasted and nothing else (read from a plain capture, after
 * the paste): the TUI's folded token of a long paste, or the text itself. Anything else in it (a key
 * someone pressed meanwhile) means it is not Rudder's alone to submit.
 */
export function boxHoldsOnly(plainCapture: string, pasted: string): boolean {
  const layout = findLayout(tailLines(plainCapture));
  if (layout.kind !== 'box') return false;
  const lines = layout.inputLines.map((l) => trimEndSpaces(l.startsWith('│ ') ? l.slice(2) : l));
  const first = (lines[0] ?? '').slice(2).trim();
  const rest = lines.slice(1).filter((l) => !isBlank(l));
  if (FOLDED_PASTE.test(first) && rest.length === 0) return true;
  const typed = [first, ...lines.slice(1).map((l) => l.trim())].join('\n').trim();
  return typed === pasted.trim();
}
