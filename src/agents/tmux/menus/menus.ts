/**
 * Reading a menu off the pane and choosing one of its options. Enter SELECTS the highlighted option,
 * so an option is chosen by moving the highlight (`❯ `) onto it, checking the pane shows it there,
 * and only then pressing Enter; then the pane is checked again to see the menu went away.
 *
 *    Do you want to proceed?                question (the nearest line above the options)
 *    ❯ 1. Yes                               highlighted option (❯ + space, never NBSP)
 *      2. Yes, and always allow access…     options start at the highlight's text column
 *      4. No
 *    Esc to cancel · Tab to amend           hint
 *
 * Menus without numbers (the trust dialog: ` ❯ No, exit` / `   Yes, I trust this folder`) read the same way.
 * A dialog starts at the rule at column 0 above its options (`────`, or `▔▔▔▔` for pickers): what is
 * above that is scrollback, never part of the menu. Inside it, dashed rules (`╌╌╌`) frame the
 * command or diff a tool prompt shows, and `Tip:` lines advertise other modes.
 */

import { type Pane, sleep } from '../pane/pane.js';
import { highlightedEntry, isBlank, startsNumbered, tailLines } from '../screen/pane-lines.js';

export interface MenuOption {
  label: string;
  /** The option's number when the menu is numbered. */
  number: number | undefined;
}

export interface MenuView {
  options: MenuOption[];
  /** Index of the highlighted option. */
  highlighted: number;
  question: string | undefined;
  /** The dialog's lines above the options, back to the rule that opens it (title, command, file), rules left out. */
  body: string[];
  /** The dialog's first line ("Bash command", "Select model"). */
  title: string | undefined;
  /** What the dialog shows between its first pair of dashed rules (a tool prompt's command), lines as drawn. */
  framed: string[];
  /** The body without its tips (`Tip: …` and their wrapped tails). */
  text: string[];
  hint: string | undefined;
  /** Identifies this menu on screen (question and options), to tell a new prompt from the same one. */
  signature: string;
}

/** How far up from the bottom a highlighted option is looked for. */
const MENU_SCAN_LINES = 60;
const MAX_BODY_LINES = 30;

const leading = (l: string) => l.length - l.trimStart().length;

const EDGE_CHARS = new Set(['─', '▔', '╌', '━', '═']);
/** A line of rule characters only (`────`, `▔▔▔▔`, `╌╌╌╌`), at least 10 of them. */
function ruleOf(line: string): string | undefined {
  const t = line.trim();
  if (t.length < 10) return undefined;
  for (const ch of t) if (!EDGE_CHARS.has(ch)) return undefined;
  return t[0];
}
/** The rule that opens a dialog: solid, at column 0 (inner separators are indented or dashed). */
const opensDialog = (line: string) => line[0] !== ' ' && (ruleOf(line) === '─' || ruleOf(line) === '▔');

/** Removes `Tip: …` lines and the lines they wrapped onto (which start in lower case). */
function withoutTips(lines: string[]): string[] {
  const out: string[] = [];
  let inTip = false;
  for (const l of lines) {
    if (/^tip:/i.test(l)) inTip = true;
    else if (!(inTip && /^[a-z]/.test(l))) (inTip = false), out.push(l);
  }
  return out;
}

function parseNumbered(text: string): MenuOption {
  const m = /^\s*(\d{1,3})[.)]\s+(.*)$/.exec(text);
  return m ? { number: Number(m[1]), label: m[2]!.trim() } : { number: undefined, label: text.trim() };
}

/** The highlighted option nearest the bottom: an indented `❯ ` entry, or a numbered one at any indent. */
function findHighlight(lines: string[]): number | undefined {
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - MENU_SCAN_LINES; i--) {
    const e = highlightedEntry(lines[i]!);
    if (e && (e.indent > 0 || startsNumbered(e.rest))) return i;
  }
  return undefined;
}

/** The rows the options around the highlighted one span, and how an option's first line is told. */
function optionRows(lines: string[], at: number) {
  const entry = highlightedEntry(lines[at]!)!;
  const col = entry.indent + 2;
  const numbered = startsNumbered(entry.rest);
  const isOptionStart = (l: string) => {
    const h = highlightedEntry(l);
    if (h) return h.indent === entry.indent;
    return leading(l) === col && (!numbered || startsNumbered(l.trimStart()));
  };
  const isContinuation = (l: string) =>
    !isBlank(l) &&
    !highlightedEntry(l) &&
    (leading(l) > col || (numbered && leading(l) === col && !startsNumbered(l.trimStart())));
  let top = at;
  while (top > 0 && (isOptionStart(lines[top - 1]!) || isContinuation(lines[top - 1]!))) top--;
  // A continuation line above the first option is the question or body, not an option.
  while (top < at && !isOptionStart(lines[top]!)) top++;
  let bottom = at;
  while (bottom + 1 < lines.length && (isOptionStart(lines[bottom + 1]!) || isContinuation(lines[bottom + 1]!)))
    bottom++;
  return { top, bottom, numbered, isOptionStart };
}

/** The options in those rows (a continuation line joins the option above it), and which one is highlighted. */
function optionsIn(lines: string[], rows: ReturnType<typeof optionRows>, at: number) {
  const options: MenuOption[] = [];
  let highlighted = 0;
  for (let i = rows.top; i <= rows.bottom; i++) {
    const l = lines[i]!;
    if (!rows.isOptionStart(l)) {
      const last = options[options.length - 1];
      if (last) last.label = `${last.label} ${l.trim()}`;
      continue;
    }
    const h = highlightedEntry(l);
    if (i === at) highlighted = options.length;
    const body = h ? h.rest : l.trimStart();
    options.push(rows.numbered ? parseNumbered(body) : { number: undefined, label: body.trim() });
  }
  return { options, highlighted };
}

/** The dialog's lines above its options, up to the rule that opens it; and those between its last two dashed rules. */
function bodyAbove(lines: string[], top: number): { above: string[]; framed: string[] } {
  const above: string[] = [];
  const framed: string[] = [];
  let dashed = 0;
  for (let i = top - 1; i >= 0 && above.length < MAX_BODY_LINES; i--) {
    const l = lines[i]!;
    if (opensDialog(l)) break;
    const rule = ruleOf(l);
    if (rule === '╌') dashed++;
    if (rule) continue;
    if (isBlank(l)) continue;
    above.unshift(l.trim());
    // Counted from the bottom: the command sits between the last two dashed rules above the options.
    if (dashed === 1) framed.unshift(l.trim());
  }
  return { above, framed: dashed < 2 ? [] : framed };
}

/** Reads the menu at the bottom of a capture; undefined when no highlighted option is drawn. */
export function readMenu(text: string): MenuView | undefined {
  const lines = tailLines(text);
  const at = findHighlight(lines);
  if (at === undefined) return undefined;
  const rows = optionRows(lines, at);
  const { options, highlighted } = optionsIn(lines, rows, at);
  const { above, framed } = bodyAbove(lines, rows.top);
  const question = [...above].reverse().find((l) => l.endsWith('?'));
  const hintLine = lines.slice(rows.bottom + 1).find((l) => !isBlank(l));
  const signature = JSON.stringify([question ?? '', above.slice(-6), options.map((o) => o.label)]);
  return {
    options,
    highlighted,
    question,
    body: above,
    title: above[0],
    framed,
    text: withoutTips(above),
    hint: hintLine?.trim(),
    signature,
  };
}

export type SelectOutcome = 'selected' | 'menu-gone' | 'option-missing' | 'highlight-stuck' | 'enter-ignored';

export interface SelectOptions {
  /** Which option to choose, by its label (and number when numbered). */
  match: (o: MenuOption, index: number) => boolean;
  /** Keys right after a menu appears are lost: wait this long before the first key. */
  settleMs?: number;
  stepMs?: number;
  /** Enter presses at most, when the menu is still there with the wanted option highlighted. */
  enterTries?: number;
  /**
   * Before pressing Enter again: is the question still unanswered? An identical prompt for the next
   * tool call looks the same on screen, and must never be answered by a retried Enter.
   */
  stillPending?: () => boolean;
  /** The menu that was put to the person: anything else on screen is left alone. */
  signature?: string;
}

/**
 * Moves the highlight to the wanted option, checks the pane shows it highlighted, presses Enter and
 * checks the menu left. Never presses Enter while another option is highlighted.
 */
export async function selectOption(pane: Pane, opts: SelectOptions): Promise<SelectOutcome> {
  const step = opts.stepMs ?? 200;
  await sleep(opts.settleMs ?? 600);
  const first = readMenu((await pane.look()).text);
  if (!first || (opts.signature !== undefined && first.signature !== opts.signature)) return 'menu-gone';
  const target = first.options.findIndex(opts.match);
  if (target < 0) return 'option-missing';
  let view = first;
  // One key per look, so a lost key is seen and sent again rather than overshooting.
  for (let moves = 0; view.highlighted !== target; moves++) {
    if (moves > first.options.length * 2 + 2) return 'highlight-stuck';
    await pane.keys(view.highlighted < target ? 'Down' : 'Up');
    await sleep(step);
    const next = readMenu((await pane.look()).text);
    if (!next || next.signature !== first.signature) return 'menu-gone';
    view = next;
  }
  for (let tries = 0; tries < (opts.enterTries ?? 3); tries++) {
    const now = readMenu((await pane.look()).text);
    if (!now || now.signature !== first.signature) return tries === 0 ? 'menu-gone' : 'selected';
    if (now.highlighted !== target) return 'highlight-stuck';
    if (tries > 0 && opts.stillPending?.() === false) return 'selected';
    await pane.keys('Enter');
    const left = await pane.waitFor((l) => readMenu(l.text)?.signature !== first.signature, 2500, step);
    if (left) return 'selected';
  }
  return 'enter-ignored';
}
