/**
 * What the agent is told about an input that runs again, from the turn that last took it in:
 *   - cut off by a crash or a restart: the text again, after a note naming the tool calls that
 *     turn had already started (a Bash command with side effects must not run twice unchecked);
 *   - failed on a rate limit: the CLI had already written the message into the session, so only a
 *     note is sent, asking for the answer to the message above (each input reaches the model once).
 * The notes are Rudder's, written outside the external-content wrapper.
 */
import type { UserInput } from '../../agents/session.js';
import { neutralise } from '../../security/wrap.js';
import type { Store } from '../../store/store.js';
import type { MessageRow, ToolCall } from '../../store/types.js';

/** Error codes of a turn that was cut off before it finished (the agent process went away). */
const CUT_OFF = ['AGENT_CRASHED', 'AGENT_EOF_WITHOUT_RESULT', 'AGENT_STDIN_BROKEN', 'AGENT_STOPPED'];

export function rerunInput(
  store: Store,
  queued: MessageRow,
  sessionId: string | undefined,
): Pick<UserInput, 'note' | 'inSession'> {
  const row = store.message(queued.id) ?? queued;
  if (row.attempts === 0 || !row.turnId) return {};
  const turn = store.turn(row.turnId);
  if (!turn) return {};
  const restart = turn.outcome === null;
  // A turn that failed names the inputs it had taken in; an input it does not name never reached it.
  if (!restart && !turn.inputIds.includes(row.id)) return {};
  if (turn.error === 'AGENT_RATE_LIMITED') {
    const inSession = !!sessionId && turn.sessionId === sessionId;
    if (!inSession) return {};
    return {
      inSession,
      note:
        `[Rudder] Your reply to the person's latest message(s) above did not get through: the request ` +
        `hit a rate limit. They are not repeated here. Answer them now.${toolsText(turn.tools)}`,
    };
  }
  if (!restart && !CUT_OFF.includes(turn.error ?? '')) return {};
  const why = restart
    ? 'Rudder (the gateway between you and the person) restarted'
    : turn.error === 'AGENT_STOPPED'
      ? 'Rudder was stopped'
      : 'the agent process stopped unexpectedly';
  return {
    note:
      `[Rudder] This message is being run again: your previous attempt at it was cut off ` +
      `because ${why} before you finished.${toolsText(turn.tools) || ' It had not started any tool call.'}`,
  };
}

function toolsText(tools: ToolCall[]): string {
  if (tools.length === 0) return '';
  const list = tools.map((t, i) => `${i + 1}. ${t.name}: ${neutralise(t.input)}`).join('\n');
  return (
    ` It had already started these tool calls, which may have run in full, in part or not at ` +
    `all:\n${list}\nCheck what they did before you run any of them again.`
  );
}
