/**
 * The tool calls a turn's last screen shows as started. Claude Code writes a new session's
 * conversation to its transcript in batches, so a TUI killed early in its first turn can leave a
 * tool running (or run) that the transcript never names; the screen still draws it:
 *
 *   ❯ <<<EXTERNAL_USER_MESSAGE id=…>>> …          the turn's message (its marker), or the last echo
 *   ● Running the requested command · 2s          2.1.332: a Bash call by its description, then
 *     ⎿  $ touch x; sleep 20                        the command
 *   ● Bash(touch x; sleep 20)                     2.1.112 (and other tools on both): Name(args)
 *
 * What is drawn is cut at the pane's width: enough to name the call, not to run it again.
 */

import type { TmuxTurn } from '../tmux-turn.js';
import { isRule, tailLines } from './pane-lines.js';

export interface ScreenToolCall {
  name: string;
  input: Record<string, string>;
}

const CALL = /^(?:[●⏺] | {2})([A-Z][A-Za-z]+)\((.*)\)$/;
const SHELL = /^\s+⎿\s+\$ (.+)$/;

export function toolCallsOnScreen(screen: string, marker?: string): ScreenToolCall[] {
  const lines = tailLines(screen);
  // With a marker, only what follows that message counts (an older turn's calls never do).
  const from = marker
    ? lines.map((l) => l.includes(marker)).lastIndexOf(true)
    : lines.map((l) => l.startsWith('❯ ')).lastIndexOf(true);
  if (from < 0) return [];
  const calls: ScreenToolCall[] = [];
  for (const line of lines.slice(from + 1)) {
    if (isRule(line)) break; // the input box: nothing below it is history
    const shell = SHELL.exec(line);
    const call = shell
      ? { name: 'Bash', args: shell[1]!.trim() }
      : ((m) => m && { name: m[1]!, args: m[2]!.trim() })(CALL.exec(line));
    if (!call) continue;
    const input: Record<string, string> = call.name === 'Bash' ? { command: call.args } : { shown: call.args };
    const last = calls.at(-1);
    if (last?.name === call.name && JSON.stringify(last.input) === JSON.stringify(input)) continue;
    calls.push({ name: call.name, input });
  }
  return calls;
}

/**
 * A turn cut off with no tool use in the transcript reports the calls its last screen shows, so a re-run can say what
 * may have run.
 */
export function reportToolsOnlyOnScreen(turn: TmuxTurn, marker: string | undefined, screen: string): void {
  if (turn.toolUseCount() > 0 || !marker) return;
  for (const [i, c] of toolCallsOnScreen(screen, marker).entries())
    turn.emit({ type: 'tool-use', id: `screen-${i + 1}`, name: c.name, input: c.input });
}
