/**
 * A card's calls after its post: an edit in place, or where the platform cannot edit, a short status
 * post; and what a failed one means for the card: a retry-after holds the chat, a platform that
 * cannot edit gets status posts instead, anything else is carried by the next edit; a card whose
 * calls keep failing is left as it is.
 */
import type { CardView } from '../../channels/channel.js';
import { isRudderError, RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { Card } from './card.js';

export function callCard(card: Card, kind: 'edit' | 'status', view: CardView): Promise<void> {
  if (kind === 'status') return card.cards.postCard(card.to, view).then(() => undefined);
  if (card.cards.editCard) return card.cards.editCard(card.to, card.handle!, view);
  return Promise.reject(
    new RudderError('CHANNEL_SEND_FAILED', 'This channel cannot edit messages.', {
      channel: card.channel.name,
      permanent: true,
    }),
  );
}

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
