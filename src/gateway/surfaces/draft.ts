/**
 * The text being written, streamed as a draft where the platform has drafts (Telegram private
 * chats: sendMessageDraft), at the card's cadence and within the chat's retry-after. What changed
 * meanwhile is sent at the next slot. A block that ended is what the draft shows next, whole, and the
 * next block's text waits until it was shown; once the turn moves past it (a tool starts, the next
 * block begins) it goes at once, out of the cadence as a card's collapse does. So the last draft of a
 * block is the whole block, even when it ended right after its first piece and the turn moved on
 * before the next slot; the turn's last block is left to the reply, which replaces the draft. Where a
 * draft fails, drafts stop for that card and the text goes into its edits instead.
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

/** The block being written grew (card.streaming): the draft shows it at its next slot, after a block that ended. */
export function draftGrew(card: Card, host: DraftHost): void {
  if (card.draft.block === 'none') card.draft.text = card.streaming;
  else card.draft.block = 'passed'; // the next block began: the one that ended goes whole at once
  streamDraft(card, host);
}

/** A block ended: the draft shows it whole at its next slot, before the next block's text. */
export function draftBlockEnded(card: Card, block: string, host: DraftHost): void {
  card.draft.text = block;
  card.draft.block = 'ended';
  streamDraft(card, host);
}

/** The turn moved past the block that ended (a tool started): the block goes whole at once. */
export function draftMovedOn(card: Card, host: DraftHost): void {
  if (card.draft.block === 'none') return;
  card.draft.block = 'passed';
  streamDraft(card, host);
}

export function streamDraft(card: Card, host: DraftHost): void {
  const draft = card.draft;
  if (card.state !== 'live' || draft.inFlight || card.view.status !== 'running') return;
  if (draft.block !== 'none' && draft.text === draft.sent) {
    // The block that ended is shown whole: the draft goes on with the block written since.
    draft.block = 'none';
    draft.text = card.streaming;
  }
  if (!draft.text.trim() || draft.text === draft.sent) return;
  const atOnce = draft.block === 'passed';
  if (draft.timer && !atOnce) return;
  clearTimeout(draft.timer);
  draft.timer = undefined;
  const every = atOnce ? 0 : card.cfg.editEverySeconds * 1000;
  const due = Math.max(draft.lastAt + every, host.blockedUntil(card.conversationId));
  const wait = due - Date.now();
  if (wait > 0) {
    draft.timer = setTimeout(() => {
      draft.timer = undefined;
      streamDraft(card, host);
    }, wait);
    draft.timer.unref();
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
