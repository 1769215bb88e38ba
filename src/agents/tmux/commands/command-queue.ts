/**
 * Slash commands (/clear, /model) run between turns, in order: at once when no turn is in
 * flight, otherwise after the running turn and before the next message is typed.
 */
import { RudderError } from '../../../errors.js';

interface Job {
  run: () => Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class CommandQueue {
  private readonly queue: Job[] = [];
  private draining: Promise<void> | undefined;

  constructor(
    private readonly inFlight: () => boolean,
    private readonly stopped: () => boolean,
  ) {}

  add(run: () => Promise<void>): Promise<void> {
    if (this.stopped()) return Promise.reject(new RudderError('AGENT_STOPPED'));
    const done = new Promise<void>((resolve, reject) => this.queue.push({ run, resolve, reject }));
    if (!this.inFlight()) void this.drain();
    return done;
  }

  /** Runs what is queued; resolves when the queue is empty (a turn awaits this before typing). */
  drain(): Promise<void> {
    if (this.draining !== undefined) return this.draining.then(() => this.drain());
    if (!this.queue.length) return Promise.resolve();
    this.draining = (async () => {
      try {
        while (this.queue.length && !this.stopped()) {
          const job = this.queue.shift()!;
          await job.run().then(job.resolve, job.reject);
        }
      } finally {
        this.draining = undefined;
        // A stopped session runs nothing more: whoever waits on a command hears so instead of waiting for ever.
        if (this.stopped())
          for (const job of this.queue.splice(0))
            job.reject(new RudderError('AGENT_STOPPED', 'The session stopped before the command ran.'));
      }
    })();
    return this.draining;
  }
}
