/**
 * What a message is, decided here and nowhere else: a command, an answer to a pending permission
 * request (its option number, 1-based), or text for the agent. Who may run it is intake's question.
 */
import { sanitiseText } from '../../security/sanitise.js';

export interface ParsedCommand {
  name: string;
  args: string;
}

export type ParsedInput =
  | { kind: 'command'; command: ParsedCommand }
  | { kind: 'permission-answer'; option: number }
  | { kind: 'text' };

const COMMAND = /^\/([a-z][a-z0-9_-]*)(?:@\S+)?(?:\s+([\s\S]*))?$/i;
const BARE_STOP = /^stop[.!]*$/i;
const OPTION_NUMBER = /^\d{1,2}$/;

/**
 * Classifies a message as the person sees it: invisible characters and control sequences do not
 * count, so "/st\u200bop" is the command it looks like. A path such as "/usr/bin is slow" is text.
 * A bare number is a permission answer only while a request is pending.
 */
export function parseInput(text: string, permissionPending: boolean): ParsedInput {
  const t = sanitiseText(text).trim();
  if (BARE_STOP.test(t)) return { kind: 'command', command: { name: 'stop', args: '' } };
  const m = COMMAND.exec(t);
  if (m) return { kind: 'command', command: { name: m[1]!.toLowerCase(), args: (m[2] ?? '').trim() } };
  if (permissionPending && OPTION_NUMBER.test(t)) return { kind: 'permission-answer', option: Number(t) };
  return { kind: 'text' };
}

/** A command, or undefined for anything else. */
export function parseCommand(text: string): ParsedCommand | undefined {
  const p = parseInput(text, false);
  return p.kind === 'command' ? p.command : undefined;
}
