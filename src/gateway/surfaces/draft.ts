/**
 * The text being written, streamed as a draft where the platform has drafts (Telegram private
 * chats: sendMessageDraft), at the card's cadence and within the chat's retry-after. What changed
 * meanwhile is sent at the next slot, so the last draft of a block is the whole block, even when the
 * block ended right after its first piece. Where a draft fails, drafts stop for that card and the
 * text goes into its edits instead.
 */
import { isRudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { Card } from './card.js';

export interface DraftHost {
  log: Logger;
  /** The chat's retry-after, epoch ms. */
  blockedUntil(conversationId: string): number;
  hold(conversationId: string, ms: number): void;
  /** Drafts are off for this card: its next edit shows the text. */
  fallBack(card: Card): void;
}

export function streamDraft(card: Card, host: DraftHost): void {
  if (card.state !== 'live' || card.draft.inFlight || card.draft.timer) return;
  if (!card.draft.text.trim() || card.draft.text === card.draft.sent || card.view.status !== 'running') return;
  const due = Math.max(card.draft.lastAt + card.cfg.editEverySeconds * 1000, host.blockedUntil(card.conversationId));
  const wait = due - Date.now();
  if (wait > 0) {
    card.draft.timer = setTimeout(() => {
      card.draft.timer = undefined;
      streamDraft(card, host);
    }, wait);
    card.draft.timer.unref();
    return;
  }
  const text = card.draft.text;
  card.draft.inFlight = true;
  const off = (err?: unknown) => {
    card.draft.on = false;
    host.log.debug(
      { conversationId: card.conversationId, err: err instanceof Error ? err.message : undefined },
      'reply draft not shown; the card shows the text instead',
    );
    host.fallBack(card);
  };
  card
    .drafts!.draftText(card.to, card.draft.id, text)
    .then(
      (ok: boolean) => {
        if (ok) card.draft.sent = text;
        else off();
      },
      (err: unknown) => {
        if (isRudderError(err, 'CHANNEL_RATE_LIMITED'))
          host.hold(card.conversationId, Number(err.context.retryAfterMs ?? 1000));
        else off(err);
      },
    )
    .finally(() => {
      card.draft.inFlight = false;
      card.draft.lastAt = Date.now(); // the interval counts from the answer, as for edits
      // What arrived while this one was in flight goes at the next slot.
      if (card.draft.on) streamDraft(card, host);
    });
}
