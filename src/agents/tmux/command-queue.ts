/**
 * Slash commands (/clear, /model) run between turns, in order: at once when no turn is in
 * flight, otherwise after the running turn and before the next message is typed.
 */
import { RudderError } from '../../errors.js';

export class CommandQueue {
  private readonly queue: Array<() => Promise<void>> = [];
  private draining: Promise<void> | undefined;

  constructor(
    private readonly inFlight: () => boolean,
    private readonly stopped: () => boolean,
  ) {}

  add(run: () => Promise<void>): Promise<void> {
    if (this.stopped()) return Promise.reject(new RudderError('AGENT_STOPPED'));
    const done = new Promise<void>((resolve, reject) => this.queue.push(() => run().then(resolve, reject)));
    if (!this.inFlight()) void this.drain();
    return done;
  }

  /** Runs what is queued; resolves when the queue is empty (a turn awaits this before typing). */
  drain(): Promise<void> {
    if (this.draining) return this.draining.then(() => this.drain());
    if (!this.queue.length) return Promise.resolve();
    this.draining = (async () => {
      try {
        while (this.queue.length && !this.stopped()) await this.queue.shift()!();
      } finally {
        this.draining = undefined;
      }
    })();
    return this.draining;
  }
}
