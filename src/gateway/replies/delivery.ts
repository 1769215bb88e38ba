/**
 * Delivers owed replies from the outbox, in order per conversation, one at a time. A reply is
 * marked delivered (and its 'reply' event logged) in one transaction after the channel confirmed
 * it; until then it stays owed and is retried, honouring the platform's retry-after. A voice note
 * (a reply spoken, after its text) gets its audio made first (voice-notes.ts), then goes the same way.
 */
import fs from 'node:fs';
import type { Channel } from '../../channels/channel.js';
import { isRudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { Store } from '../../store/store.js';
import type { OutboxRow } from '../../store/types.js';
import type { EventBus } from '../bus.js';
import type { ReplyGate } from './gate.js';
import type { VoiceNotes } from './voice-notes.js';

const MAX_BACKOFF_MS = 5 * 60_000;
/** A voice note whose audio could not be made is tried once more after this long, then said so instead. */
const VOICE_RETRY_MS = 5_000;

export class Delivery {
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly channelOf: (conversationId: string) => { channel: Channel | undefined; key: string } | undefined,
    private readonly log: Logger,
    private readonly gate: ReplyGate,
    private readonly voice: VoiceNotes,
  ) {}

  /** Starts (or re-checks) delivery for a conversation. */
  kick(conversationId: string): void {
    if (this.stopped) return;
    if (this.running.has(conversationId)) {
      this.again.add(conversationId);
      return;
    }
    this.running.add(conversationId);
    void this.drain(conversationId).finally(() => {
      this.running.delete(conversationId);
      if (this.again.delete(conversationId)) this.kick(conversationId);
    });
  }

  /** Every conversation with replies owed (at start, after a crash). */
  kickAll(): void {
    const convs = new Set(this.store.owed(10_000).map((o) => o.conversationId));
    for (const c of convs) this.kick(c);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  /** Resolves once nothing is being delivered (for a bounded shutdown drain). */
  async idle(timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (this.running.size && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  }

  private async drain(conversationId: string): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const row = this.store.owedFor(conversationId)[0];
      if (!row) return;
      const wait = row.nextAttemptAt - Date.now();
      if (wait > 0) return this.retryLater(conversationId, wait);
      const target = this.channelOf(conversationId);
      if (!target?.channel) {
        this.store.markAttempt(row.id, 'channel not running', Date.now() + MAX_BACKOFF_MS);
        this.log.warn(
          { conversationId, outboxId: row.id },
          'reply owed to a channel that is not running; kept in the outbox',
        );
        return this.retryLater(conversationId, MAX_BACKOFF_MS);
      }
      if (!(await this.deliver(row, target.channel, target.key))) return;
    }
  }

  private async deliver(row: OutboxRow, channel: Channel, key: string): Promise<boolean> {
    if (row.kind === 'voice') return this.deliverVoice(row, channel, key);
    const replyTo = row.replyTo ?? undefined;
    try {
      // A reply goes out only once the turn's outcome that owes it is committed (store.groupCommit), and after the
      // collapse of its turn's card (gate.ts), so the card above it never still says "Working".
      await this.store.committed();
      await this.gate.passed(row.conversationId);
      if (this.stopped) return false;
      await channel.send(
        { outboxId: row.id, text: row.text, replyTo, fromFallback: row.fromFallback },
        { conversationKey: key, platformMessageId: replyTo },
      );
    } catch (err) {
      return this.notYet(row, err);
    }
    const event = this.store.markDelivered(row, {
      type: 'reply',
      data: {
        text: row.text,
        kind: row.kind,
        messageIds: row.messageIds,
        outboxId: row.id,
        fromFallback: row.fromFallback,
      },
    });
    this.sentOut(channel);
    if (event) this.bus.publish(event);
    return true;
  }

  /**
   * The platform has the reply: its mark is committed now, not at the end of the loop turn, so a crash can only
   * resend it if it lands in the few instructions between the platform's answer and this commit.
   */
  private sentOut(channel: Channel): void {
    if (!channel.capabilities?.deliveredInStore) this.store.commitNow();
  }

  /** A platform refused or could not be reached: the row stays owed, tried again after its retry-after or a backoff. */
  private notYet(row: OutboxRow, err: unknown): false {
    const retryAfter = isRudderError(err, 'CHANNEL_RATE_LIMITED')
      ? Number(err.context.retryAfterMs ?? 1000)
      : Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(row.attempts, 12));
    this.store.markAttempt(row.id, (err as Error).message, Date.now() + retryAfter);
    this.log.warn(
      {
        conversationId: row.conversationId,
        outboxId: row.id,
        kind: row.kind,
        attempt: row.attempts + 1,
        retryInMs: retryAfter,
        err: (err as Error).message,
      },
      'reply not delivered yet; kept owed',
    );
    this.retryLater(row.conversationId, retryAfter);
    return false;
  }

  /**
   * A reply spoken: its audio made (or found, after a crash), sent as a voice note, then marked sent once. Audio that
   * cannot be made is tried once more, then the row becomes a notice that says so: never dropped in silence.
   */
  private async deliverVoice(row: OutboxRow, channel: Channel, key: string): Promise<boolean> {
    await this.store.committed();
    const calls = channel.capabilities?.voice;
    if (!calls) {
      // The chat moved to a channel without voice notes: its text reply was the answer.
      this.store.markSent(row);
      return true;
    }
    let audio: Awaited<ReturnType<VoiceNotes['audio']>>;
    try {
      audio = await this.voice.audio(row);
    } catch (err) {
      // Stopped with the gateway: the row stays owed for the next start, untouched.
      if (this.stopped) return false;
      const why = (err as Error).message;
      if (row.attempts < 1) {
        this.store.markAttempt(row.id, why, Date.now() + VOICE_RETRY_MS);
        this.retryLater(row.conversationId, VOICE_RETRY_MS);
        return false;
      }
      this.log.warn({ conversationId: row.conversationId, outboxId: row.id, err: why }, 'voice note not made');
      this.store.outboxToNotice(row.id, `🔇 The voice note of this reply could not be made. ${why}`);
      return true;
    }
    const replyTo = row.replyTo ?? undefined;
    try {
      await calls.sendVoice(
        { conversationKey: key, platformMessageId: replyTo },
        { outboxId: row.id, ...audio, replyTo },
      );
    } catch (err) {
      return this.notYet(row, err);
    }
    // Sent: the file is the platform's now (the page makes its own of the text reply when asked).
    const marked = this.store.markSent(row);
    this.sentOut(channel);
    if (marked) await fs.promises.rm(audio.file, { force: true });
    return true;
  }

  private retryLater(conversationId: string, ms: number): void {
    clearTimeout(this.timers.get(conversationId));
    const t = setTimeout(() => {
      this.timers.delete(conversationId);
      this.kick(conversationId);
    }, ms);
    t.unref();
    this.timers.set(conversationId, t);
  }
}
