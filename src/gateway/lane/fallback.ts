/**
 * While the agent is rate limited, the local model answers the held messages (they still run on the
 * agent when the limit resets); when none is configured or it fails, the person is told why instead.
 * Runs beside the lane: nothing of the lane's state waits for it.
 */
import { isRudderError } from '../../errors.js';
import type { MessageRow } from '../../store/types.js';
import type { LaneDeps } from './deps.js';
import { fallbackFailedNotice, fallbackReply } from './held.js';

export async function answerFromFallback(
  deps: LaneDeps,
  conversationId: string,
  rows: MessageRow[],
  until: number,
  known: boolean,
): Promise<void> {
  const agent = deps.settings(conversationId).agent;
  try {
    const text = await deps.fallback(rows);
    deps.replies.send(conversationId, 'reply', fallbackReply(agent, until, known, text), rows, { fromFallback: true });
  } catch (err) {
    const why = isRudderError(err) ? err.message : String(err);
    deps.replies.send(conversationId, 'notice', fallbackFailedNotice(agent, until, known, why), rows);
  }
}
