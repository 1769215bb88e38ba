/**
 * An agent binary's last check, kept fresh: a result older than maxAgeMs is checked again in the
 * background when it is read, so a binary installed or repaired later shows without a restart.
 */
import type { BinaryCheck } from './binary-check.js';

export class BinaryHealth {
  private last: BinaryCheck | undefined;
  private lastAt = 0;
  private running: Promise<BinaryCheck> | undefined;

  constructor(
    /** The check itself; it reports what it finds and never throws (a throw is reported with the fix). */
    private readonly check: () => Promise<BinaryCheck>,
    private readonly onThrow: { agent: string; fix: string },
    private readonly maxAgeMs = 30_000,
  ) {}

  refresh(): Promise<BinaryCheck> {
    return (this.running ??= this.check()
      .catch(
        (err: Error): BinaryCheck => ({
          agent: this.onThrow.agent,
          ok: false,
          path: null,
          source: null,
          version: null,
          problem: err.message,
          fix: this.onThrow.fix,
          checkedAt: new Date().toISOString(),
        }),
      )
      .then((r) => {
        this.last = r;
        this.lastAt = Date.now();
        this.running = undefined;
        return r;
      }));
  }

  /** The last result (undefined before the first check ends). */
  current(): BinaryCheck | undefined {
    if (!this.running && Date.now() - this.lastAt > this.maxAgeMs) void this.refresh();
    return this.last;
  }
}
