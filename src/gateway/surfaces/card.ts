/** One progress card's state: where it is shown, what it showed last, and its timers. */
import { randomBytes } from 'node:crypto';
import type { CardCalls, Channel, DraftCalls, MessageRef } from '../../channels/channel.js';
import type { GateHold } from '../replies/gate.js';
import type { TurnView } from '../steps/types.js';
import type { ProgressConfig } from './settings.js';

/**
 * waiting: not posted yet (minTurnSeconds, the first tool); posting: the post is in flight;
 * live: edited in place; status: the platform cannot edit it, short status posts instead; done.
 */
export type CardState = 'waiting' | 'posting' | 'live' | 'status' | 'done';

export interface Card {
  /** The id its Stop button carries. */
  ref: string;
  turnId: string;
  conversationId: string;
  channel: Channel;
  cards: CardCalls;
  /** Where drafts are shown (Telegram private chats), when the channel has them. */
  drafts: DraftCalls | undefined;
  to: MessageRef;
  cfg: ProgressConfig;
  view: TurnView;
  state: CardState;
  handle?: string;
  /** When the last post or edit of this card was answered: the interval counts from there. */
  lastCallAt: number;
  inFlight: boolean;
  /** Something changed that the card does not show yet. */
  dirty: boolean;
  failures: number;
  /** The card as last shown, to skip edits that would change nothing. */
  shown?: string;
  timer?: NodeJS.Timeout;
  heartbeat?: NodeJS.Timeout;
  /** The text block being streamed, since the last completed one. */
  streaming: string;
  /** text: what the draft should show (the block so far, then the whole block); sent: what it shows. */
  draft: {
    id: number;
    on: boolean;
    lastAt: number;
    inFlight: boolean;
    text: string;
    sent: string;
    /**
     * none: text is the block being written; ended: a block that ended, not shown whole yet (it goes first);
     * passed: such a block the turn has moved past (it goes at once).
     */
    block: 'none' | 'ended' | 'passed';
    timer?: NodeJS.Timeout;
  };
  /** Held while the turn's collapse is on its way: the reply waits for it (replies/gate.ts). */
  gate?: GateHold;
}

let nextDraftId = 1;

export function newCard(
  turn: TurnView,
  target: { channel: Channel; key: string },
  cards: CardCalls,
  cfg: ProgressConfig,
): Card {
  const drafts = target.channel.capabilities?.drafts;
  return {
    ref: randomBytes(6).toString('base64url'),
    turnId: turn.id,
    conversationId: turn.conversationId,
    channel: target.channel,
    cards,
    drafts,
    to: { conversationKey: target.key },
    cfg,
    view: turn,
    state: 'waiting',
    lastCallAt: 0,
    inFlight: false,
    dirty: false,
    failures: 0,
    streaming: '',
    // Telegram wants a non-zero draft id; one per turn keeps its updates animated as one draft.
    draft: {
      id: nextDraftId++,
      on: !!drafts && cfg.text !== 'final-only',
      lastAt: 0,
      inFlight: false,
      text: '',
      sent: '',
      block: 'none',
    },
  };
}

/** The card is finished with: its timers stop and the reply no longer waits for it. */
export function releaseCard(card: Card): void {
  card.gate?.release();
  card.gate = undefined;
  clearTimeout(card.timer);
  clearTimeout(card.heartbeat);
  clearTimeout(card.draft.timer);
  card.timer = card.heartbeat = card.draft.timer = undefined;
}
