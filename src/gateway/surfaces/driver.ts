/**
 * The progress driver: one card per running turn in each chat, built from the StepLog (never
 * from a backend's events). It decides when a card is posted, edited and collapsed, by the
 * `progress` settings of the conversation's channel, and calls the channel's optional
 * capabilities (cards, drafts). Everything here is best effort: the final reply travels through
 * the outbox on its own, and no card call waits for it or delays it.
 *
 * Cadence, per card: edits are at least `editEverySeconds` apart, counted from the previous call's
 * answer; while one is in flight or a platform's retry-after runs, changes are coalesced into the
 * next edit (never queued up), which renders the turn as it is then. A 429 holds every card of
 * that chat until its retry-after passed. The collapse at a turn's end is outside that rhythm: it
 * goes as soon as no edit is in flight (and the chat's retry-after passed), and the reply waits for
 * its answer (replies/gate.ts), so the reply never lands under a card that still says "Working".
 */
import type { CardCalls, CardView } from '../../channels/channel.js';
import type { Config } from '../../config/schema.js';
import { isRudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { BusEvent, EventBus } from '../bus.js';
import type { Chat } from '../chats.js';
import type { ReplyGate } from '../replies/gate.js';
import type { StepLog } from '../steps/step-log.js';
import type { Step, TurnView } from '../steps/types.js';
import { type Card, newCard, releaseCard } from './card.js';
import { callCard, cardCallFailed } from './card-calls.js';
import { collapsedCard, runningCard } from './card-view.js';
import { type DraftHost, draftBlockEnded, draftGrew, draftMovedOn, streamDraft } from './draft.js';
import { IntermediateTexts } from './intermediate.js';
import { type ProgressConfig, progressFor } from './settings.js';

/** A running card with nothing new is refreshed this often (its elapsed time), unless edits are rarer. */
const HEARTBEAT_MS = 15_000;
/** Where a card cannot be edited: a new short status message at most this often. */
const STATUS_EVERY_MS = 60_000;
/** How long a reply waits at most for its card's collapse, beyond the chat's retry-after. */
const COLLAPSE_WAIT_MS = 5_000;
/** Characters of the text being written kept for a draft or the card (drafts show at most 4,096). */
const STREAM_KEEP = 8000;

export interface ProgressHost {
  steps: StepLog;
  bus: EventBus;
  log: Logger;
  /** Held while a card's collapse is on its way: the conversation's reply waits for it. */
  gate: ReplyGate;
  settings(): Config;
  /** The chat a conversation lives in, when its channel runs. */
  target(conversationId: string): Chat | undefined;
  queued(conversationId: string): number;
  /** Sends text the agent wrote between tools as a message of its own (progress.text "messages"). */
  sendText(conversationId: string, text: string, inputIds: string[]): void;
}

export class ProgressDriver {
  private readonly cards = new Map<string, Card>();
  private readonly byRef = new Map<string, Card>();
  /** Running turns whose card was given up on (not posted, or edits kept failing): never a second card. */
  private readonly gaveUp = new Set<string>();
  /** A chat's retry-after (epoch ms): no card call to it before. */
  private readonly blockedUntil = new Map<string, number>();
  private readonly intermediate: IntermediateTexts;
  private readonly drafts: DraftHost;
  private readonly unsubscribe: Array<() => void> = [];
  private stopped = false;

  constructor(private readonly host: ProgressHost) {
    this.intermediate = new IntermediateTexts(host.sendText);
    this.drafts = {
      log: host.log,
      blockedUntil: (id) => this.blockedUntil.get(id) ?? 0,
      hold: (id, ms) => this.hold(id, ms),
      fallBack: (card) => this.schedule(card),
    };
    this.unsubscribe.push(host.steps.onChange((turn, changed) => this.changed(turn, changed)));
    this.unsubscribe.push(host.bus.subscribeAll((e) => this.busEvent(e)));
  }

  /** The card a Stop button belongs to: its conversation, and whether its turn still runs. */
  cardOf(ref: string): { conversationId: string; turnId: string; running: boolean } | undefined {
    const c = this.byRef.get(ref);
    return c ? { conversationId: c.conversationId, turnId: c.turnId, running: c.view.status === 'running' } : undefined;
  }

  stop(): void {
    this.stopped = true;
    for (const u of this.unsubscribe.splice(0)) u();
    for (const c of this.cards.values()) releaseCard(c);
    this.cards.clear();
    this.byRef.clear();
    this.gaveUp.clear();
  }

  private changed(turn: TurnView, changed: Step[]): void {
    if (this.stopped) return;
    const target = this.host.target(turn.conversationId);
    const caps = target?.channel.capabilities;
    if (!target || caps?.drawsTurns) return;
    const cfg = progressFor(this.host.settings(), target.channel.name);
    if (cfg.text === 'messages') this.intermediate.seen(turn);
    let card = this.cards.get(turn.id);
    if (!card) {
      if (turn.status !== 'running') return void this.gaveUp.delete(turn.id);
      if (cfg.mode !== 'card' || !caps?.cards || this.gaveUp.has(turn.id)) return;
      card = this.open(turn, target, caps.cards, cfg);
    }
    card.view = turn;
    const block = changed.findLast((s) => s.kind === 'text');
    if (block) {
      card.streaming = '';
      // The last draft of a block is the whole block, even when it ended before the draft's next slot.
      if (card.draft.on && turn.status === 'running') draftBlockEnded(card, block.text, this.drafts);
    }
    if (card.draft.on && changed.some((s) => s.kind === 'tool' || s.kind === 'permission'))
      draftMovedOn(card, this.drafts);
    if (turn.status !== 'running') return this.ended(card);
    if (card.state === 'waiting') {
      if (turn.steps.some((s) => s.kind === 'tool' || s.kind === 'permission')) this.post(card);
      return;
    }
    this.schedule(card);
  }

  private open(turn: TurnView, target: Chat, cards: CardCalls, cfg: ProgressConfig): Card {
    const card = newCard(turn, target, cards, cfg);
    this.cards.set(turn.id, card);
    this.byRef.set(card.ref, card);
    const wait = Math.max(0, turn.startedAt + cfg.minTurnSeconds * 1000 - Date.now());
    card.timer = setTimeout(() => this.post(card), wait);
    card.timer.unref();
    return card;
  }

  private busEvent(e: BusEvent): void {
    if (this.stopped) return;
    if (e.type === 'text') {
      const card = this.cards.get(e.data.turnId);
      if (card?.view.status !== 'running' || card.cfg.text === 'final-only') return;
      card.streaming = (card.streaming + e.data.delta).slice(-STREAM_KEEP);
      if (card.draft.on) draftGrew(card, this.drafts);
      else this.schedule(card);
      return;
    }
    // The queue moved: its count is on the card.
    if (e.type === 'ack' && (e.data.kind === 'queued' || e.data.kind === 'steered')) {
      for (const c of this.cards.values())
        if (c.conversationId === e.conversationId && c.view.status === 'running') this.schedule(c);
    }
  }

  private render(card: Card, now: number): CardView {
    if (card.view.status !== 'running') return collapsedCard(card.view, card.cfg.text, now);
    return runningCard(card.view, {
      now,
      queued: this.host.queued(card.conversationId),
      textMode: card.cfg.text,
      streaming: card.draft.on ? undefined : card.streaming,
      stopData: `s:${card.ref}`,
    });
  }

  private post(card: Card): void {
    if (card.state !== 'waiting' || this.stopped) return;
    clearTimeout(card.timer);
    card.timer = undefined;
    const wait = (this.blockedUntil.get(card.conversationId) ?? 0) - Date.now();
    if (wait > 0) {
      card.timer = setTimeout(() => this.post(card), wait);
      card.timer.unref();
      return;
    }
    card.state = 'posting';
    const view = this.render(card, Date.now());
    card.cards.postCard(card.to, view).then(
      (handle) => {
        card.handle = handle;
        card.lastCallAt = Date.now();
        card.shown = JSON.stringify(view);
        card.state = 'live';
        // What was written before the card was up goes to the draft now.
        if (card.draft.on) streamDraft(card, this.drafts);
        this.settle(card);
      },
      (err: unknown) => {
        if (isRudderError(err, 'CHANNEL_RATE_LIMITED') && card.view.status === 'running') {
          this.hold(card.conversationId, Number(err.context.retryAfterMs ?? 1000));
          card.state = 'waiting';
          return this.post(card);
        }
        this.host.log.warn(
          { conversationId: card.conversationId, err: (err as Error).message },
          'progress card not posted; the turn goes on without one',
        );
        this.done(card);
      },
    );
  }

  /** Edits the card now, or when its interval and the chat's retry-after allow; changes meanwhile are coalesced. */
  private schedule(card: Card): void {
    if (card.state === 'posting') card.dirty = true;
    if (this.stopped || (card.state !== 'live' && card.state !== 'status')) return;
    if (card.inFlight) {
      card.dirty = true;
      return;
    }
    // The collapse goes at once, out of the rhythm, while the reply waits for it (after a 429, when it passed).
    const collapse = card.view.status !== 'running' && card.gate !== undefined;
    const every = collapse ? 0 : card.state === 'status' ? STATUS_EVERY_MS : card.cfg.editEverySeconds * 1000;
    const due = Math.max(card.lastCallAt + every, this.blockedUntil.get(card.conversationId) ?? 0);
    const wait = due - Date.now();
    if (wait <= 0) return this.flush(card);
    if (card.timer) return;
    card.timer = setTimeout(() => {
      card.timer = undefined;
      this.schedule(card);
    }, wait);
    card.timer.unref();
  }

  private flush(card: Card): void {
    clearTimeout(card.timer);
    card.timer = undefined;
    card.dirty = false;
    const view = this.render(card, Date.now());
    const text = JSON.stringify(view);
    if (text === card.shown) return this.settle(card);
    // A card that cannot be edited says nothing more at the end: the final reply follows.
    if (card.state === 'status' && view.final) return this.done(card);
    card.inFlight = true;
    let limited = false;
    const kind = card.state === 'status' ? 'status' : 'edit';
    callCard(card, kind, view)
      .then(
        () => {
          card.shown = text;
          card.failures = 0;
        },
        (err: unknown) => {
          limited = isRudderError(err, 'CHANNEL_RATE_LIMITED');
          cardCallFailed(card, err, kind, { log: this.host.log, hold: (id, ms) => this.hold(id, ms) });
        },
      )
      .finally(() => {
        card.inFlight = false;
        // From the answer, so the platform never sees two calls closer than the interval, whatever the network's
        // delays.
        card.lastCallAt = Date.now();
        // The collapse was answered or refused: the reply waits no longer (a retry is not waited for). A 429 holds
        // the reply too, so the collapse still goes first, once the retry-after passed.
        if (view.final && !limited) {
          card.gate?.release();
          card.gate = undefined;
        }
        this.settle(card);
      });
  }

  /** After an edit (or a skipped one): the next if something changed, the end if it was the last, else a heartbeat. */
  private settle(card: Card): void {
    if (card.state === 'done') return this.done(card);
    const collapsed = card.view.status !== 'running';
    if (collapsed && card.shown && JSON.parse(card.shown).final) return this.done(card);
    if (card.dirty || collapsed) return this.schedule(card);
    clearTimeout(card.heartbeat);
    card.heartbeat = setTimeout(() => this.schedule(card), Math.max(HEARTBEAT_MS, card.cfg.editEverySeconds * 1000));
    card.heartbeat.unref();
  }

  private ended(card: Card): void {
    clearTimeout(card.heartbeat);
    clearTimeout(card.draft.timer);
    if (card.state === 'waiting') return this.done(card);
    const chatFree = Math.max(Date.now(), this.blockedUntil.get(card.conversationId) ?? 0);
    if (card.state !== 'status') card.gate ??= this.host.gate.hold(card.conversationId, chatFree + COLLAPSE_WAIT_MS);
    // A post in flight schedules the collapse when it lands.
    if (card.state !== 'posting') this.schedule(card);
  }

  private hold(conversationId: string, ms: number): void {
    const until = Math.max(this.blockedUntil.get(conversationId) ?? 0, Date.now() + ms);
    this.blockedUntil.set(conversationId, until);
    // A collapse held by the retry-after still comes before the reply.
    for (const c of this.cards.values())
      if (c.conversationId === conversationId) c.gate?.extend(until + COLLAPSE_WAIT_MS);
  }

  private done(card: Card): void {
    card.state = 'done';
    releaseCard(card);
    this.cards.delete(card.turnId);
    if (card.view.status === 'running') this.gaveUp.add(card.turnId);
    // The Stop button of a finished card still answers "that turn already ended" for a while.
    setTimeout(() => this.byRef.delete(card.ref), 10 * 60_000).unref();
    for (const [chat, until] of this.blockedUntil) if (until < Date.now()) this.blockedUntil.delete(chat);
  }
}
