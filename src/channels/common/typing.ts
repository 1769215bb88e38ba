/**
 * Keeps a typing indicator alive: platforms show it for a few seconds only (Telegram ~5 s,
 * Discord ~10 s, WhatsApp until "paused"), so it is sent again on an interval while a turn runs.
 */
import type { Logger } from '../../ops/logger.js';
import type { MessageRef } from '../channel.js';

export interface TypingOptions {
  /** How often to re-send; a little under the platform's display time. */
  intervalMs: number;
  /** Safety stop for an indicator nobody turned off. */
  maxMs?: number;
  send(to: MessageRef): Promise<void>;
  /** Clears the indicator where the platform can (WhatsApp "paused"). */
  clear?(to: MessageRef): Promise<void>;
  logger?: Logger;
}

interface Running {
  timer: NodeJS.Timeout;
  startedAt: number;
}

export class TypingKeeper {
  private running = new Map<string, Running>();

  constructor(private readonly opts: TypingOptions) {}

  set(to: MessageRef, on: boolean): void {
    const key = to.conversationKey;
    const current = this.running.get(key);
    if (!on) {
      if (!current) return;
      clearInterval(current.timer);
      this.running.delete(key);
      if (this.opts.clear) this.call(() => this.opts.clear!(to));
      return;
    }
    if (current) return;
    const maxMs = this.opts.maxMs ?? 30 * 60_000;
    const startedAt = Date.now();
    const tick = () => {
      if (Date.now() - startedAt > maxMs) return this.set(to, false);
      this.call(() => this.opts.send(to));
    };
    const timer = setInterval(tick, this.opts.intervalMs);
    // A typing indicator must never keep the process alive.
    timer.unref();
    this.running.set(key, { timer, startedAt });
    tick();
  }

  stopAll(): void {
    for (const r of this.running.values()) clearInterval(r.timer);
    this.running.clear();
  }

  /** A send that throws at once (a channel that lost its connection) fails like one that rejects: quietly. */
  private call(send: () => Promise<void>): void {
    Promise.resolve()
      .then(send)
      .catch((err) => this.fail(err));
  }

  private fail(err: unknown): void {
    // A lost typing indicator is cosmetic; it never fails a turn.
    this.opts.logger?.debug({ err: err instanceof Error ? err.message : String(err) }, 'typing indicator failed');
  }
}
