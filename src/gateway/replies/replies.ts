/**
 * What the gateway says back: replies and notices committed to the outbox and delivered in order
 * (delivery.ts), acknowledgements of a message (a bus event for the page, a reaction or a short
 * text on its platform), and the typing indicator while a turn runs.
 */
import type { AckKind, AckOptions } from '../../channels/channel.js';
import type { Logger } from '../../ops/logger.js';
import { isQuietReply } from '../../schedules/quiet.js';
import type { Store } from '../../store/store.js';
import { isJobMessage, type MessageRow, type OutboxKind } from '../../store/types.js';
import type { EventBus } from '../bus.js';
import type { Chats } from '../chats.js';
import type { AckData } from '../events.js';
import { Delivery } from './delivery.js';
import type { ReplyGate } from './gate.js';
import type { VoiceNotes } from './voice-notes.js';

const ACK_EMOJI: Record<AckKind, string> = { received: '👀', steered: '➡️', queued: '⏳', stopped: '⏹' };

/** The data of an 'ack' event. */
export function ackData(kind: AckKind, note?: string): AckData {
  return { kind, emoji: ACK_EMOJI[kind], ...(note ? { note } : {}) };
}

export interface RepliesDeps {
  store: Store;
  bus: EventBus;
  chats: Chats;
  log: Logger;
  /** What a chat's next message waits for (a card's collapse). */
  gate: ReplyGate;
  /** Replies spoken (tts.command). */
  voice: VoiceNotes;
}

export class Replies {
  readonly delivery: Delivery;

  constructor(private readonly d: RepliesDeps) {
    this.delivery = new Delivery(d.store, d.bus, (id) => d.chats.keyOf(id), d.log, d.gate, d.voice);
  }

  /**
   * Commits a reply or notice to the outbox and starts its delivery. A scheduled run in a conversation of its own
   * also owes what it says to the schedule's `deliver` (JobTag.copyTo), headed with the run.
   */
  send(
    conversationId: string,
    kind: OutboxKind,
    text: string,
    rows: MessageRow[],
    opts: { fromFallback?: boolean } = {},
  ): void {
    const first = rows[0];
    this.d.store.addOutbox({
      conversationId,
      kind,
      messageIds: rows.map((r) => r.id),
      // A schedule's or a webhook's message is no platform message: there is nothing to reply to.
      replyTo: first && !isJobMessage(first) ? first.platformMessageId : null,
      text,
      fromFallback: opts.fromFallback,
    });
    queueMicrotask(() => this.delivery.kick(conversationId));
    if (kind === 'voice') return;
    for (const to of copiesOf(rows, conversationId)) {
      this.d.store.addOutbox({ conversationId: to.id, kind, messageIds: [], text: `${to.heading}\n\n${text}` });
      queueMicrotask(() => this.delivery.kick(to.id));
    }
  }

  /**
   * A turn's reply; to a voice note, in a chat that takes voice notes and with tts.command set, it is also owed
   * spoken, right after the text (both in the outbox in the same transaction, so neither is lost or doubled).
   * `spoken`: what is read aloud (the agent's answer, without the transcript the text shows before it).
   */
  reply(conversationId: string, text: string, rows: MessageRow[], spoken = text): void {
    if (this.quiet(conversationId, rows, spoken)) return;
    this.send(conversationId, 'reply', text, rows);
    if (!spoken.trim() || !rows.some(isVoiceNote) || !this.d.voice.enabled()) return;
    if (this.d.chats.of(conversationId)?.channel.capabilities?.voice) this.send(conversationId, 'voice', spoken, rows);
  }

  /**
   * A heartbeat's reply that is only its quiet word is not delivered: its slot ends as quiet, in the reply's
   * transaction. A turn that also answers a person's message is delivered whatever it says.
   */
  private quiet(conversationId: string, rows: MessageRow[], spoken: string): boolean {
    if (!rows.length || !rows.every((r) => r.extra.job?.quiet) || !isQuietReply(spoken)) return false;
    for (const r of rows) this.d.store.firings.end(r.extra.job!.name, r.extra.job!.slot!, 'quiet');
    this.d.log.info({ conversationId, messageIds: rows.map((r) => r.id) }, 'heartbeat quiet: reply not delivered');
    return true;
  }

  /** A notice answering the message with this id (none when it is gone). */
  notice(conversationId: string, text: string, messageId: string | null): void {
    const row = messageId ? this.d.store.message(messageId) : undefined;
    this.send(conversationId, 'notice', text, row ? [row] : []);
  }

  /** The acknowledgement of a message: an event for the page, and the same on its platform. */
  ack(row: MessageRow, kind: AckKind, note?: string, opts?: AckOptions): void {
    this.d.bus.emit(row.conversationId, 'ack', row.id, ackData(kind, note));
    this.channelAck(row, kind, note, opts);
  }

  /** Shows an acknowledgement on the platform (the bus event is logged separately). */
  channelAck(row: MessageRow, kind: AckKind, note?: string, opts?: AckOptions): void {
    const chat = this.d.chats.of(row.conversationId);
    // A schedule's or a webhook's message has no platform message to react to.
    if (!chat || isJobMessage(row)) return;
    const text = kind === 'steered' ? row.text : note;
    // With store.groupCommit the reaction waits for the commit that holds the message.
    this.d.store.afterCommit(() => {
      chat.channel
        .ack({ conversationKey: chat.key, platformMessageId: row.platformMessageId }, kind, text, opts)
        .catch((err: unknown) => {
          this.d.log.warn(
            { conversationId: row.conversationId, kind, err: (err as Error).message },
            'acknowledgement not shown',
          );
        });
    });
  }

  typing(conversationId: string, on: boolean): void {
    const chat = this.d.chats.of(conversationId);
    chat?.channel.typing?.({ conversationKey: chat.key }, on);
  }
}

/** The conversations a scheduled run's words are copied to (its schedule's deliver), once each. */
function copiesOf(rows: MessageRow[], conversationId: string): Array<{ id: string; heading: string }> {
  const out = new Map<string, string>();
  for (const r of rows) {
    const job = r.extra.job;
    if (job?.copyTo && job.copyTo !== conversationId) out.set(job.copyTo, job.copyHeading ?? `Schedule ${job.name}:`);
  }
  return [...out].map(([id, heading]) => ({ id, heading }));
}

/** A voice note or an audio message (what stt transcribed). */
function isVoiceNote(row: MessageRow): boolean {
  return !!row.extra.attachments?.some((a) => a.kind === 'voice' || a.kind === 'audio');
}
