/** One line that says what a running turn is about and where it is, for a stop notice or a status. */
import type { TurnView } from './types.js';

const MAX_QUOTE = 80;

function quote(text: string): string {
  const line = text.trim().split('\n')[0]!.trim();
  return `“${line.length > MAX_QUOTE ? `${line.slice(0, MAX_QUOTE - 1)}…` : line}”`;
}

/** e.g. `“run the tests”, at Bash: npm test`; `textOf` finds a message's text by id. */
export function describeTurn(turn: TurnView, textOf: (messageId: string) => string | undefined): string {
  const first = turn.inputIds.map(textOf).find((t): t is string => !!t?.trim());
  const parts = first ? [quote(first)] : [];
  const last = [...turn.steps]
    .reverse()
    .find((s) => (s.kind === 'tool' && s.status === 'running') || (s.kind === 'permission' && s.status === 'open'));
  if (last?.kind === 'tool') parts.push(`at ${last.name}: ${last.summary}`);
  else if (last?.kind === 'permission') parts.push(`waiting for permission to use ${last.toolName}`);
  else if (turn.steps.some((s) => s.kind === 'tool'))
    parts.push(`after ${turn.steps.filter((s) => s.kind === 'tool').length} tool call(s)`);
  return parts.join(', ');
}
