/**
 * Turning inputs into the text typed into the pane, and typing it: every input wrapped as external
 * content (which strips control sequences before it neutralises markers, so a stray ESC[201~
 * cannot end the paste and no escape code can hide a marker), copy mode left, the box emptied,
 * one bracketed paste in pieces of at most 8 KB, and Enter after a short settle.
 * Text longer than the threshold is saved to a file and a reference to the file is typed instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stripControlSequences } from '../../../security/control-sequences.js';
import { newWrapperId } from '../../../security/wrap.js';
import { agentText } from '../../common/agent-text.js';
import type { UserInput } from '../../session.js';
import { type Pane, sleep } from '../pane/pane.js';
import { boxHoldsOnly, readInputLine } from '../screen/pane-input.js';
import { findLayout } from '../screen/pane-layout.js';
import { isBlank, tailLines } from '../screen/pane-lines.js';

export interface PreparedMessage {
  /** What is pasted into the box. */
  typed: string;
  /** The full wrapped text the agent is meant to read (equal to `typed` unless saved to a file). */
  full: string;
  /** A string unique to this message that its transcript entry contains: `id=<wrapper id>`. */
  marker: string;
  /** The file the full text was saved to, when it was too long to type. */
  file: string | undefined;
}

export interface PrepareOptions {
  /** Above this many UTF-8 bytes the text goes to a file. */
  thresholdBytes: number;
  /** Where long messages are saved (created on demand). */
  fileDir: string;
}

export function prepareMessage(inputs: UserInput[], opts: PrepareOptions): PreparedMessage {
  const ids = inputs.map(() => newWrapperId());
  // Always wrapped: a message counts as delivered when its marker shows up in the transcript.
  const full = stripControlSequences(agentText(inputs, { ids, alwaysWrap: true }));
  const marker = `id=${ids[0]}`;
  const bytes = Buffer.byteLength(full, 'utf8');
  if (bytes <= opts.thresholdBytes) return { typed: full, full, marker, file: undefined };
  fs.mkdirSync(opts.fileDir, { recursive: true, mode: 0o700 });
  const file = path.join(opts.fileDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${ids[0]}.txt`);
  fs.writeFileSync(file, full, { mode: 0o600 });
  const typed =
    `[Rudder] A message too long to type (${bytes} bytes) was saved to ${file} (${marker}). ` +
    'Read that whole file now: it holds the message, wrapped as external content, and answer it as if it had ' +
    'been typed here.';
  return { typed, full, marker, file };
}

/** What the input box holds: undefined when no box is drawn. */
export function boxIsEmpty(ansiCapture: string): boolean | undefined {
  const line = readInputLine(ansiCapture);
  if (!line) return undefined;
  const extra = findLayout(tailLines(ansiCapture))
    .inputLines.slice(1)
    .some((l) => !isBlank(l));
  return (line.placeholder || line.typedChars === 0) && !extra;
}

/**
 * Empties the box (Ctrl-U clears a line, Backspace joins the one above); false if it would not empty.
 * `onlyIf`: in a pane a person types in too, the box is emptied only while it holds this text alone.
 */
export async function clearInputBox(pane: Pane, onlyIf?: string, maxRounds = 40): Promise<boolean> {
  if (onlyIf !== undefined && boxIsEmpty(await pane.ansi()) === false) {
    const text = (await pane.look()).text;
    if (!boxHoldsOnly(text, onlyIf)) return false;
  }
  for (let round = 0; round < maxRounds; round++) {
    const empty = boxIsEmpty(await pane.ansi());
    if (empty !== false) return empty === true;
    await pane.keys('C-u');
    await sleep(60);
    if (boxIsEmpty(await pane.ansi()) === false) await pane.keys('BSpace');
    await sleep(60);
  }
  return boxIsEmpty(await pane.ansi()) === true;
}

/**
 * Types a prepared message and submits it. The caller has just seen the pane `ready` or `busy`
 * and holds the pane, so nothing else of Rudder's types in between. In a pane a person types in too
 * (`shared`), the caller saw the box empty; Enter is pressed only if the box then holds the paste
 * alone: a key the person pressed meanwhile is never submitted with it (false: not submitted).
 */
export async function typeMessage(pane: Pane, text: string, settleMs: number, shared = false): Promise<boolean> {
  if (!shared) {
    await pane.tmux.leaveCopyMode(pane.name);
    await clearInputBox(pane);
  }
  await pane.tmux.pasteChunked(pane.name, text);
  await sleep(settleMs);
  if (shared && !(await pasteShown(pane, text))) return false;
  await pane.keys('Enter');
  return true;
}

/** How long a busy machine may take to draw a paste in the box before it counts as typed over. */
const PASTE_DRAWN_MS = 3000;

/** The box holds the paste alone, once the TUI has drawn it (a loaded machine draws late). */
async function pasteShown(pane: Pane, text: string): Promise<boolean> {
  const until = Date.now() + PASTE_DRAWN_MS;
  for (;;) {
    if (boxHoldsOnly((await pane.look()).text, text)) return true;
    if (Date.now() > until) return false;
    await sleep(100);
  }
}
