/**
 * Starting the chat channels: all at once, each on its own, so one that cannot reach its platform
 * (grammY retries getMe for ever while the Bot API is unreachable) holds up nothing else. The
 * gateway waits a bounded time for them; a channel that has not started by then keeps trying in
 * the background, and its state (not started, why, next attempt) is in the status report.
 */
import type { Channel, InboundSink } from '../channels/channel.js';
import { isRudderError } from '../errors.js';
import type { Logger } from '../ops/logger.js';

export interface ChannelStartState {
  /** True once start() resolved. */
  started: boolean;
  /** Why the last attempt failed, or that it is still waiting; absent once started. */
  error?: string;
  attempts: number;
  /** When the next attempt runs, epoch ms; absent while one runs or when none will. */
  retryAt?: number;
}

const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 5 * 60_000;

/** A missing, malformed or rejected token does not fix itself; an unreachable platform or a busy port may. */
function worthRetrying(err: unknown): boolean {
  return !(isRudderError(err, 'CHANNEL_CONFIG') && /token$/i.test(String(err.context.key ?? '')));
}

export class ChannelStarter {
  private readonly states = new Map<string, ChannelStartState>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly sink: InboundSink,
    private readonly log: Logger,
    /** Called when a channel has started (owed replies can go out now). */
    private readonly onStarted: (ch: Channel) => void,
  ) {}

  state(name: string): ChannelStartState | undefined {
    const s = this.states.get(name);
    return s && { ...s };
  }

  /**
   * Starts every channel concurrently and resolves when all have started or failed, or after
   * timeoutMs, or when the signal aborts: whichever comes first. A channel still starting then
   * goes on in the background. Resolves with the channels not started yet.
   */
  async startAll(channels: Channel[], timeoutMs: number, signal?: AbortSignal): Promise<Channel[]> {
    const firsts = channels.map((ch) => this.attempt(ch));
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      Promise.allSettled(firsts),
      new Promise<void>((r) => (timer = setTimeout(r, timeoutMs))),
      new Promise<void>((r) => {
        if (signal?.aborted) return r();
        onAbort = () => r();
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    const waiting = channels.filter((ch) => !this.states.get(ch.name)?.started);
    for (const ch of waiting) {
      const s = this.states.get(ch.name)!;
      if (s.error === undefined) s.error = `not connected after ${Math.round(timeoutMs / 1000)} s; still trying`;
      this.log.warn(
        { channel: ch.name, err: s.error },
        'channel not started yet; the other channels run, and it keeps trying in the background',
      );
    }
    return waiting;
  }

  /** The first attempt of one channel; failures schedule the next. */
  private attempt(ch: Channel): Promise<void> {
    const s = this.states.get(ch.name) ?? { started: false, attempts: 0 };
    this.states.set(ch.name, s);
    s.attempts++;
    delete s.retryAt;
    return ch.start(this.sink).then(
      () => {
        if (this.stopped) return;
        s.started = true;
        delete s.error;
        this.log.info({ channel: ch.name, attempts: s.attempts }, 'channel started');
        this.onStarted(ch);
      },
      (err: unknown) => {
        if (this.stopped) return;
        s.error = err instanceof Error ? err.message : String(err);
        if (!worthRetrying(err)) {
          this.log.error(
            { channel: ch.name, err: s.error },
            'channel failed to start; the other channels keep running. Fix its settings and restart',
          );
          return;
        }
        const wait = Math.min(FIRST_RETRY_MS * 2 ** (s.attempts - 1), MAX_RETRY_MS);
        s.retryAt = Date.now() + wait;
        this.log.error(
          { channel: ch.name, err: s.error, retryInSeconds: wait / 1000 },
          'channel failed to start; the other channels keep running, and it is tried again',
        );
        const t = setTimeout(() => {
          this.timers.delete(t);
          if (!this.stopped) void this.attempt(ch);
        }, wait);
        t.unref();
        this.timers.add(t);
      },
    );
  }

  /** No attempt starts after this; the caller stops the channels themselves. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
