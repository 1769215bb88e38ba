/**
 * Finds the input structure at the bottom of a pane and splits the screen around it:
 *
 *   ...history...            older turns: never evidence (a `❯ 1. …` there is a user's echo)
 *   <attached block>         drawn against the box: spinner, tip, slash-command list
 *   ──────────────           top rule            (or ╭──╮ in older versions)
 *   ❯\u00a0typed text        input lines          (typed text: never evidence)
 *   ──────────────           bottom rule         (or ╰──╯)
 *   <footer>                 permission mode, `esc to interrupt`, shortcut panel
 *
 * Without a box, a bare prompt as the last line (`❯`, `>`, `› `) is the anchor instead.
 */
import {
  indentedEmptyPrompt,
  isBlank,
  isBoxBottom,
  isBoxTop,
  isRule,
  type PromptLine,
  promptLine,
} from './pane-lines.js';

export interface Layout {
  kind: 'box' | 'bare-prompt' | 'none';
  lines: string[];
  /** Index of the first line of the input structure (top rule or bare prompt). */
  anchor: number | undefined;
  prompt: PromptLine | undefined;
  /** Lines inside the box (typed text or placeholder). */
  inputLines: string[];
  /** Lines below the bottom rule. */
  footer: string[];
  /** The contiguous block right above the anchor, bottom first. */
  attached: string[];
}

/** Footers are a few lines; the `?` shortcut panel is seven (2.1.332), thirteen at 80 columns (2.1.112). */
const FOOTER_MAX = 16;
/** A multi-line message in the box can be long; the box grows up to a limit. */
const INPUT_MAX = 40;
/** Blank lines allowed between the attached block and the box (an empty effort-indicator line). */
const ATTACHED_GAP_MAX = 2;
const ATTACHED_MAX = 24;

const isTopEdge = (l: string) => isRule(l) || isBoxTop(l);
const isBottomEdge = (l: string) => isRule(l) || isBoxBottom(l);

/** A new history entry at column 0: an assistant bullet, or a user turn echoed with `❯ `. */
function startsHistoryEntry(line: string): boolean {
  return line.startsWith('●') || line.startsWith('⏺') || line.startsWith('❯ ');
}

function attachedBlock(lines: string[], anchor: number): { attached: string[] } {
  const block: string[] = [];
  let i = anchor - 1;
  let gap = 0;
  while (i >= 0 && isBlank(lines[i]!) && gap < ATTACHED_GAP_MAX) i--, gap++;
  for (; i >= 0 && block.length < ATTACHED_MAX; i--) {
    const line = lines[i]!;
    if (isBlank(line)) break;
    block.push(line);
    // The entry's own first line belongs to it (a selected `❯ 1.` option is checked by the caller).
    if (startsHistoryEntry(line)) break;
  }
  return { attached: block };
}

function findBox(lines: string[]): { top: number; bottom: number; prompt: PromptLine } | undefined {
  let bottom = lines.length - 1;
  while (bottom >= 0 && lines.length - 1 - bottom <= FOOTER_MAX && !isBottomEdge(lines[bottom]!)) bottom--;
  if (bottom < 0 || lines.length - 1 - bottom > FOOTER_MAX) return undefined;
  // Both edges are of one style: rules (2.1.x), or the older rounded box (╭──╮ … ╰──╯).
  const isTop = isBoxBottom(lines[bottom]!) ? isBoxTop : isRule;
  let top = bottom - 1;
  while (top >= 0 && bottom - top <= INPUT_MAX && !isTop(lines[top]!)) top--;
  if (top < 0 || top === bottom - 1 || bottom - top > INPUT_MAX) return undefined;
  const prompt = promptLine(lines[top + 1]!);
  return prompt ? { top, bottom, prompt } : undefined;
}

export function findLayout(lines: string[]): Layout {
  const box = findBox(lines);
  if (box) {
    return {
      kind: 'box',
      lines,
      anchor: box.top,
      prompt: box.prompt,
      inputLines: lines.slice(box.top + 1, box.bottom),
      footer: lines.slice(box.bottom + 1),
      ...attachedBlock(lines, box.top),
    };
  }
  const last = lines.length - 1;
  const bare = last >= 0 ? (promptLine(lines[last]!) ?? indentedEmptyPrompt(lines[last]!)) : undefined;
  // `❯ text` with a normal space is a history echo or a menu highlight, not an input line.
  if (bare && (bare.nbsp || bare.empty)) {
    const anchor = last > 0 && isTopEdge(lines[last - 1]!) ? last - 1 : last;
    return {
      kind: 'bare-prompt',
      lines,
      anchor,
      prompt: bare,
      inputLines: [lines[last]!],
      footer: [],
      ...attachedBlock(lines, anchor),
    };
  }
  return { kind: 'none', lines, anchor: undefined, prompt: undefined, inputLines: [], footer: [], attached: [] };
}
