/**
 * Line-level reading of a Claude Code pane capture: the bounded tail the classifier looks at,
 * and what kind of line each one is (rule, prompt, spinner, footer, menu option, dialog hint).
 * Every test here is a prefix, substring or character-class check: no backtracking regexes.
 */
import { stripControlSequences } from '../../../security/control-sequences.js';

/** Only the end of a capture matters; bounding it keeps 1 MB of scrollback as cheap as a screen. */
export const TAIL_CHARS = 32 * 1024;
export const TAIL_LINES = 80;
/** A single screen line is at most a few hundred columns; longer ones are cut. */
const MAX_LINE_CHARS = 1024;

export const NBSP = '\u00a0';
const RULE_CHAR = '─';
const MIN_RULE_CHARS = 10;
/** Spinner glyphs drawn at column 0 while working (and frozen there when the turn ends). */
const SPINNER_GLYPHS = new Set(['·', '✢', '*', '✶', '✻', '✽', '✳', '✺', '✹', '✸', '✷', '∗']);
/** Glyphs an input line starts with: Claude Code ❯, shell mode !, older >, other agents ›. */
const PROMPT_GLYPHS = new Set(['❯', '!', '>', '›']);

/** Removes trailing spaces and tabs but keeps NBSP, which marks the idle input line. */
export function trimEndSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && (line.charCodeAt(end - 1) === 0x20 || line.charCodeAt(end - 1) === 0x09)) end--;
  return end === line.length ? line : line.slice(0, end);
}

const isBlankChar = (c: number) => c === 0x20 || c === 0x09 || c === 0xa0;

export function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) if (!isBlankChar(line.charCodeAt(i))) return false;
  return true;
}

/** The last lines of the capture, controls stripped, trailing blank lines dropped. */
export function tailLines(text: string): string[] {
  const tail = text.length > TAIL_CHARS ? text.slice(text.length - TAIL_CHARS) : text;
  // A cut tail starts mid-line; that first piece is far above the bottom, where structure is read.
  const lines = stripControlSequences(tail).split('\n');
  while (lines.length && isBlank(lines[lines.length - 1]!)) lines.pop();
  const kept = lines.length > TAIL_LINES ? lines.slice(lines.length - TAIL_LINES) : lines;
  return kept.map((l) => trimEndSpaces(l.length > MAX_LINE_CHARS ? l.slice(0, MAX_LINE_CHARS) : l));
}

function leadingSpaces(line: string): number {
  let i = 0;
  while (i < line.length && line.charCodeAt(i) === 0x20) i++;
  return i;
}

/** A horizontal rule (the input box's top or bottom edge): only `─`, at least 10 of them. */
export function isRule(line: string): boolean {
  const start = leadingSpaces(line);
  if (line.length - start < MIN_RULE_CHARS) return false;
  for (let i = start; i < line.length; i++) if (line[i] !== RULE_CHAR) return false;
  return true;
}

/** Top and bottom edges of the older rounded input box (`╭──╮` / `╰──╯`). */
export const isBoxTop = (line: string) => line.trimStart().startsWith('╭─');
export const isBoxBottom = (line: string) => line.trimStart().startsWith('╰─');

export interface PromptLine {
  /** `❯`, `!` (shell mode: Enter runs the text as a shell command), `>` or `›`. */
  glyph: string;
  /** The glyph is followed by NBSP: 2.1.332's own idle input line (menus and history use a space). */
  nbsp: boolean;
  /** Nothing but blanks after the glyph. */
  empty: boolean;
}

/** An input line: a prompt glyph at column 0 (or inside the older `│ … │` box), then NBSP, space or nothing. */
export function promptLine(line: string): PromptLine | undefined {
  let body = line;
  if (body.startsWith('│ ')) body = body.endsWith('│') ? body.slice(2, -1) : body.slice(2);
  const glyph = body[0];
  if (glyph === undefined || !PROMPT_GLYPHS.has(glyph)) return undefined;
  const next = body[1];
  if (next !== undefined && next !== NBSP && next !== ' ') return undefined;
  return { glyph, nbsp: next === NBSP, empty: isBlank(body.slice(1)) };
}

/** An empty prompt drawn indented (other agents' `  › `); with text after it, an indented `❯` is a highlight. */
export function indentedEmptyPrompt(line: string): PromptLine | undefined {
  const prompt = promptLine(line.slice(leadingSpaces(line)));
  return prompt?.empty ? prompt : undefined;
}

/** `❯` + normal space drawn as a highlight: on a menu option, a dialog choice or a list entry. */
export function highlightedEntry(line: string): { indent: number; rest: string } | undefined {
  const indent = leadingSpaces(line);
  if (line[indent] !== '❯' || line[indent + 1] !== ' ') return undefined;
  return { indent, rest: line.slice(indent + 2) };
}

/** `N.` or `N)` at the start of text: a numbered option. */
export function startsNumbered(text: string): boolean {
  let i = 0;
  while (i < text.length && text[i] === ' ') i++;
  const digitsStart = i;
  while (i < text.length && i - digitsStart < 3 && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
  return i > digitsStart && (text[i] === '.' || text[i] === ')') && (text[i + 1] === ' ' || i + 1 === text.length);
}

/** The highlight glyph sits on a numbered option line, e.g. ` ❯ 1. Yes`. */
export function isSelectedNumberedOption(line: string): boolean {
  const entry = highlightedEntry(line);
  return entry !== undefined && startsNumbered(entry.rest);
}

function includesAny(line: string, needles: readonly string[]): boolean {
  const lower = line.toLowerCase();
  return needles.some((n) => lower.includes(n));
}

/**
 * Hints drawn under a dialog or picker whose keys select something: `↓ to navigate` (/config),
 * 2.1.112's `Enter to continue · Esc to exit` (rewind) and `Enter/↓ to select · Esc to clear` (/config).
 */
const DIALOG_HINTS = [
  'enter to confirm',
  'enter to select',
  'esc to cancel',
  'to navigate',
  'esc to go back',
  'enter to continue',
  'esc to exit',
  '↓ to select',
  'esc to clear',
  // the session picker of `claude --resume` and /resume (2.1.332: "… · Enter to resume · Esc to close")
  'enter to resume',
];
export const hasDialogHint = (line: string) => includesAny(line, DIALOG_HINTS);

/** Printed by Claude Code (both lines) as it exits, over what it drew: `Resume this session with:`. */
export const isExitNotice = (line: string) => line.trim() === 'Resume this session with:';

/** Drawn while a turn runs: 2.1.332's footer, older spinner lines. */
const WORKING_HINTS = ['esc to interrupt', 'ctrl+c to interrupt'];
export const hasWorkingHint = (line: string) => includesAny(line, WORKING_HINTS);

/** Placeholder in the input line while a message waits for the running turn. */
export const hasQueuedPlaceholder = (line: string) => line.includes('Press up to edit queued messages');

/**
 * A spinner line of a turn in progress: glyph at column 0, then `Verb…` (2.1.332: `✶ Verb… (3s · ↓ 7
 * tokens)`), or `Verb (12s · …` (older). A finished turn leaves `✻ Cooked for 8s`: no ellipsis.
 */
export function isActiveSpinner(line: string): boolean {
  if (!SPINNER_GLYPHS.has(line[0] ?? '') || line[1] !== ' ') return false;
  if (line.includes('retrying in ')) return true;
  const paren = line.indexOf(' (', 2);
  const label = paren < 0 ? line.slice(2) : line.slice(2, paren);
  if (label.endsWith('…') || label.endsWith('...')) return label.length > 1;
  if (paren < 0) return false;
  // `Verb (12s · esc to interrupt)`: a running timer straight after a one-word label.
  const c = line.charCodeAt(paren + 2);
  return label.indexOf(' ') < 0 && c >= 0x30 && c <= 0x39;
}

/**
 * Footers drawn only under a live input box: permission mode (`⏵⏵ auto mode on`, `⏸ manual mode
 * on · ? for shortcuts`) or the bare shortcut hint. Matched at the line start: the ctrl+o transcript
 * view ends its own line with `· ? for shortcuts` and has no input box.
 */
export function isModeFooter(line: string): boolean {
  const t = line.trimStart();
  return (
    t.startsWith('⏵⏵ ') || t.startsWith('⏸ ') || t.startsWith('? for shortcuts') || t.startsWith('shift+tab to cycle')
  );
}

/**
 * An entry of a completion list drawn BELOW the input box (2.1.112, highlight in colour only):
 * `/command   description` or `* name (agent) – …` / `+ path`, at column 0. Footers are indented,
 * and the shortcut panel's `/ for commands` / `/btw for side question` have one space after the word.
 */
export function isListBelowBoxEntry(line: string): boolean {
  if (line.startsWith('* ') || line.startsWith('+ ')) return line.length > 2 && line[2] !== ' ';
  if (line[0] !== '/') return false;
  let i = 1;
  while (i < line.length && /[A-Za-z0-9:_-]/.test(line[i]!)) i++;
  return i > 1 && (i === line.length || line.startsWith('  ', i));
}

/** 2.1.112's ctrl+r: the box is a search over earlier prompts; Enter takes the match. */
export function isHistorySearchFooter(line: string): boolean {
  const t = line.trimStart();
  return t.startsWith('search prompts:') || t.startsWith('no matching prompt:');
}

/** tmux's own line for a pane whose program exited (remain-on-exit). */
export const isPaneDeadLine = (line: string) => line.startsWith('Pane is dead (');
