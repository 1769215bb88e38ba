/**
 * What a failed post or edit of a card means for it: a retry-after holds the chat, a platform that
 * cannot edit gets short status posts instead, anything else is carried by the next edit; a card
 * whose calls keep failing is left as it is.
 */
import { isRudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { Card } from './card.js';

/** Edits of one card that failed in a row before it is left as it is. */
const MAX_FAILURES = 5;

export function cardCallFailed(
  card: Card,
  err: unknown,
  kind: 'edit' | 'status',
  o: { log: Logger; hold(conversationId: string, ms: number): void },
): void {
  card.failures++;
  card.dirty = true;
  if (isRudderError(err, 'CHANNEL_RATE_LIMITED')) {
    o.hold(card.conversationId, Number(err.context.retryAfterMs ?? 1000));
  } else if (isRudderError(err, 'CHANNEL_SEND_FAILED') && err.context.permanent && kind === 'edit') {
    o.log.info(
      { conversationId: card.conversationId, err: err.message },
      'progress card cannot be edited here; a short status message at most once a minute instead',
    );
    card.state = 'status';
  } else {
    o.log.debug(
      { conversationId: card.conversationId, err: (err as Error).message },
      'progress card edit failed; the next one carries the change',
    );
  }
  if (card.failures >= MAX_FAILURES) {
    o.log.warn({ conversationId: card.conversationId }, 'progress card edits keep failing; leaving the card as it is');
    card.dirty = false;
    card.state = 'done';
  }
}
