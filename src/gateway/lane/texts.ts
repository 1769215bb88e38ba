/** What the person is told about a turn's end: the reply's text, and the notices of a re-run or a failure. */
import type { TurnResult } from '../../agents/session.js';
import type { RudderError } from '../../errors.js';
import type { MessageRow } from '../../store/types.js';

export function replyText(r: TurnResult, rows: MessageRow[]): string {
  const text = r.text.trim() || '(The agent finished without a text reply.)';
  const voice = rows.map((row) => row.extra.transcript).filter((t): t is string => t !== undefined);
  return voice.length ? `${voice.map((t) => `🎤 “${t}”`).join('\n')}\n\n${text}` : text;
}

/** The agent's answer in a reply, without the transcripts replyText() put before it (what is read aloud). */
export function answerOf(reply: string, rows: MessageRow[]): string {
  const voice = rows.map((row) => row.extra.transcript).filter((t): t is string => t !== undefined);
  const prefix = voice.length ? `${voice.map((t) => `🎤 “${t}”`).join('\n')}\n\n` : '';
  return prefix && reply.startsWith(prefix) ? reply.slice(prefix.length) : reply;
}

/** Told when a cut-off turn runs again, like the notice after a restart of Rudder. */
export function rerunText(err: RudderError): string {
  if (err.code === 'AGENT_SESSION_NOT_FOUND')
    return '↻ The saved agent session could not be resumed; running your message again in a new session.';
  // A node that restarted mid-turn (nodes/node/runner.ts): it is back, and the turn it lost runs again.
  if (err.code === 'AGENT_CRASHED' && typeof err.context.node === 'string')
    return (
      `↻ ${err.context.node} is back after a restart that lost this turn; ` +
      'running your message again on the resumed session.'
    );
  return '↻ The agent stopped unexpectedly; running your message again on the resumed session.';
}

export const RESTART_RERUN_TEXT =
  '↻ Rudder restarted while this message was being worked on; running it again on the resumed session.';
export const RESTART_FAILED_TEXT =
  '⚠️ This message was cut off by a Rudder restart, twice, and was not answered. Send it again if you still need it.';

export function failureText(err: RudderError): string {
  switch (err.code) {
    case 'AGENT_TURN_TIMEOUT':
      return 'The turn took too long and was stopped. The session is kept; send your message again to continue.';
    case 'AGENT_CRASHED':
    case 'AGENT_EOF_WITHOUT_RESULT':
    case 'AGENT_STDIN_BROKEN':
      return (
        'The agent stopped in the middle of this turn twice, so it was not answered. The session is kept; ' +
        'send the message again to retry.'
      );
    default:
      return err.message;
  }
}

/** A tool call's input in one short line: its command, path, URL or pattern, else the input as JSON. */
export function summarizeInput(input: unknown): string {
  const o = (typeof input === 'object' && input ? input : {}) as Record<string, unknown>;
  const main = ['command', 'file_path', 'path', 'url', 'pattern'].find((k) => typeof o[k] === 'string');
  const s = main ? String(o[main]) : JSON.stringify(input ?? '');
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
