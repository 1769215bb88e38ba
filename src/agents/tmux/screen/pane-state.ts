/**
 * Reads a plain capture (`tmux capture-pane -p`) of a Claude Code pane and says whether text can be
 * typed into it. Pure, total (any input gets one of the four verdicts) and bounded to the tail.
 *
 *   menu      a choice is on screen: Enter would SELECT an option. Never type.
 *   busy      a turn is running; the input box takes text and the TUI queues it into the turn.
 *   ready     an idle input box (or a bare prompt, or a permission-mode footer); also the box in
 *             shell mode (`!`), with reason `shell-mode`: idle, but Enter there runs the text as a
 *             command, so the typing code leaves it first and never types into it.
 *   not-ready anything else: blank, booting, banner prose, exited (also when the pane's shell
 *             took over below claude's last frame), a view without the box.
 *
 * Both TUI lines are read: 2.1.332 (alternate screen, lists drawn above the box) and 2.1.112
 * (main screen, welcome box, slash-command and @-mention lists drawn below the box).
 *
 * Precedence is menu > busy > ready > not-ready. Slash-command mentions are never evidence of
 * anything (a banner advertises `/model` in prose); only structure counts: the input box between
 * its rules, its footers, the spinner line above it, and option lines with the highlight glyph.
 *
 * Placeholder text (`❯ Resend your message to try again`) looks typed in a plain capture; only
 * `capture-pane -e` shows it is dim. See hasPlaceholderInput in pane-input.ts.
 */
import { findLayout, type Layout } from './pane-layout.js';
import {
  hasDialogHint,
  hasQueuedPlaceholder,
  hasWorkingHint,
  highlightedEntry,
  isActiveSpinner,
  isBlank,
  isExitNotice,
  isHistorySearchFooter,
  isListBelowBoxEntry,
  isModeFooter,
  isPaneDeadLine,
  isSelectedNumberedOption,
  tailLines,
} from './pane-lines.js';

export type PaneVerdict = 'ready' | 'busy' | 'menu' | 'not-ready';

export interface PaneClassification {
  state: PaneVerdict;
  /** Short stable tags naming the evidence, e.g. "input-box", "numbered-option-selected". */
  reasons: string[];
}

/** Facts tmux knows beside the text; a dead pane's last frame can be an idle prompt byte for byte. */
export interface PaneFacts {
  /** `#{pane_dead}` was 1. */
  paneDead?: boolean;
  /** `#{pane_current_command}`: a shell there means claude is not what reads the keys. */
  foreground?: string;
}

/** Shells: in the foreground of a claude pane only before claude started, or after it exited. */
const SHELLS = new Set(['sh', 'bash', 'zsh', 'fish', 'dash', 'ksh', 'mksh', 'tcsh', 'csh', 'ash', 'nu', 'elvish']);

/** With no input box, how many of the last non-blank lines may hold a footer, dialog hint or spinner. */
const BOTTOM_LINES_NO_BOX = 8;
/** With no input box, how far up a highlighted numbered option still counts (long pickers). */
const MENU_LINES_NO_BOX = 40;

const verdict = (state: PaneVerdict, ...reasons: string[]): PaneClassification => ({ state, reasons });

function lastNonBlank(lines: string[], count: number): string[] {
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < count; i--) if (!isBlank(lines[i]!)) out.push(lines[i]!);
  return out;
}

function findMenu(layout: Layout): string | undefined {
  const { attached, footer, lines, anchor } = layout;
  if (anchor !== undefined) {
    // With a live input box, only what is drawn against it counts; older lines are history.
    if (attached.some(isSelectedNumberedOption) || footer.some(isSelectedNumberedOption))
      return 'numbered-option-selected';
    // While messages wait in the TUI's queue, 2.1.112 draws them as `  ❯ text` above the box: not a list.
    const queueShown = layout.inputLines.some(hasQueuedPlaceholder);
    if (!queueShown && attached.some((l) => (highlightedEntry(l)?.indent ?? 0) > 0))
      return 'list-entry-highlighted-above-input';
    if (attached.some(hasDialogHint)) return 'dialog-hint-above-input';
    if (footer.some(isListBelowBoxEntry)) return 'list-below-input';
    // Real footers never hold a highlighted choice: a dialog under something that looks like a box is still a dialog.
    if (footer.some((l) => highlightedEntry(l) !== undefined)) return 'highlight-below-input';
    if (footer.some(isHistorySearchFooter)) return 'history-search';
    return undefined;
  }
  const recent = lastNonBlank(lines, MENU_LINES_NO_BOX);
  if (recent.some(isSelectedNumberedOption)) return 'numbered-option-selected';
  const bottom = recent.slice(0, BOTTOM_LINES_NO_BOX);
  if (bottom.some(hasDialogHint))
    return recent.some((l) => highlightedEntry(l)) ? 'dialog-choice-highlighted' : 'dialog-hint';
  return undefined;
}

function findWork(layout: Layout): string | undefined {
  const { attached, footer, anchor, inputLines, lines } = layout;
  if (anchor === undefined) {
    const bottom = lastNonBlank(lines, BOTTOM_LINES_NO_BOX);
    if (bottom.some(hasWorkingHint)) return 'working-hint';
    if (bottom.some(isActiveSpinner)) return 'active-spinner';
    return undefined;
  }
  if (footer.some(hasWorkingHint)) return 'working-hint-in-footer';
  if (attached.some(isActiveSpinner)) return 'active-spinner';
  if (attached.some(hasWorkingHint)) return 'working-hint-above-input';
  if (inputLines.some(hasQueuedPlaceholder)) return 'queued-message-placeholder';
  return undefined;
}

function findInput(layout: Layout): string[] | undefined {
  if (layout.kind === 'box') {
    const extra = layout.footer.some(isModeFooter) ? ['mode-footer'] : [];
    return [layout.prompt?.nbsp ? 'input-box-idle-line' : 'input-box', ...extra];
  }
  if (layout.kind === 'bare-prompt') return ['bare-prompt'];
  // Newer footers count on their own (some frames draw the footer before the box is readable).
  if (lastNonBlank(layout.lines, 3).some(isModeFooter)) return ['mode-footer'];
  return undefined;
}

/**
 * Claude Code says how to resume as it exits; below the box (2.1.112's main screen keeps its last
 * frame) that means the pane's shell has the keys now, whatever the frame above shows.
 */
function exitedBelow(lines: string[], layout: Layout): boolean {
  for (let i = lines.length - 1; i >= 0 && i >= (layout.anchor ?? lines.length - BOTTOM_LINES_NO_BOX * 2); i--)
    if (isExitNotice(lines[i]!)) return true;
  return false;
}

function classify(text: string, facts: PaneFacts): PaneClassification {
  if (facts.paneDead) return verdict('not-ready', 'pane-dead');
  if (facts.foreground && SHELLS.has(facts.foreground.replace(/^-/, '')))
    return verdict('not-ready', 'shell-in-foreground');
  const lines = tailLines(text);
  if (lines.length === 0) return verdict('not-ready', 'blank');
  if (lastNonBlank(lines, 3).some(isPaneDeadLine)) return verdict('not-ready', 'pane-dead-line');
  const layout = findLayout(lines);
  if (exitedBelow(lines, layout)) return verdict('not-ready', 'claude-exited');
  const menu = findMenu(layout);
  if (menu) return verdict('menu', menu);
  const work = findWork(layout);
  // `!` mode: idle (or busy) all the same, but Enter runs what is typed as a shell command (both versions).
  if (layout.prompt?.glyph === '!') return work ? verdict('busy', work, 'shell-mode') : verdict('ready', 'shell-mode');
  if (work) return verdict('busy', work);
  const input = findInput(layout);
  if (input) return verdict('ready', ...input);
  return verdict('not-ready', 'no-input-structure');
}

export function classifyPaneDetailed(text: string, facts: PaneFacts = {}): PaneClassification {
  if (typeof text !== 'string') return verdict('not-ready', 'not-text');
  try {
    return classify(text, facts ?? {});
  } catch {
    // Totality: a reading bug must never become a typing decision.
    return verdict('not-ready', 'classifier-error');
  }
}

export function classifyPane(text: string, facts: PaneFacts = {}): PaneVerdict {
  return classifyPaneDetailed(text, facts).state;
}

/** Typing is allowed when ready, and when busy (the TUI queues it into the running turn). */
export function canTypeNow(text: string, facts: PaneFacts = {}): boolean {
  const state = classifyPane(text, facts);
  return state === 'ready' || state === 'busy';
}
