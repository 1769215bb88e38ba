/**
 * A spare agent process (steering.spareProcess): one `claude -p --input-format stream-json`
 * process started ahead of time, so the next new conversation's first turn skips the CLI's
 * start-up (it reads nothing and writes nothing until its first message). A launch takes it only
 * when it would start exactly the same process: the same binary, arguments, working directory and
 * environment, i.e. a new session with the same settings (never a resumed one). Anything else
 * starts its own process, as without the flag.
 *
 * The next spare is started a few seconds after one is taken (or after a launch could have used
 * one), so it does not compete for the CPU with the first turn it was meant to speed up. The spare
 * is recorded like every agent process (a restart kills it), and stopped with the gateway.
 */
import type { Logger } from '../../ops/logger.js';
import { AgentProcess, type SpawnSpec } from './process.js';

/** How long after a take (or a miss) the next spare is started. */
export const SPARE_DELAY_MS = 3000;
const SPARE_LABEL = 'spare';

/** What makes two launches the same process; the label, logger and tracker only say who it is for. */
function keyOf(spec: SpawnSpec): string {
  return JSON.stringify([
    spec.bin,
    spec.args,
    spec.cwd,
    Object.entries(spec.env).sort(([a], [b]) => a.localeCompare(b)),
    spec.markPrefix ?? null,
  ]);
}

export class SpareProcess {
  private spare: { key: string; proc: AgentProcess } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly log: Logger,
    private readonly delayMs = SPARE_DELAY_MS,
  ) {}

  /**
   * The spare, when it was started for this very spec and is still alive; then the next one is
   * started later. A new session's spec is remembered either way, for the next spare.
   */
  take(spec: SpawnSpec): AgentProcess | undefined {
    if (this.stopped || spec.args.includes('--resume')) return undefined;
    const key = keyOf(spec);
    const spare = this.spare;
    let taken: AgentProcess | undefined;
    if (spare && spare.key === key && spare.proc.alive()) {
      this.spare = undefined;
      taken = spare.proc;
      // Recorded again under the conversation that has it now.
      if (taken.pid > 0) spec.tracker?.started(taken.pid, spec.label);
      this.log.info({ conversationId: spec.label, pid: taken.pid }, 'took the spare agent process');
    }
    this.later(spec, key);
    return taken;
  }

  /** Whether a spare is ready (for the status report and the benchmark). */
  ready(): boolean {
    return !!this.spare?.proc.alive();
  }

  /** Stops the spare (the flag was turned off, or the gateway stops). */
  async stop(reason: string, forGood = false): Promise<void> {
    if (forGood) this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const spare = this.spare;
    this.spare = undefined;
    if (spare?.proc.alive()) await spare.proc.kill(reason);
  }

  private later(spec: SpawnSpec, key: string): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped || (this.spare?.key === key && this.spare.proc.alive())) return;
      const old = this.spare;
      this.spare = undefined;
      if (old?.proc.alive()) void old.proc.kill('the spare process was started for other settings');
      try {
        const proc = AgentProcess.spawn({ ...spec, label: SPARE_LABEL, logger: this.log });
        this.spare = { key, proc };
        this.log.debug({ pid: proc.pid }, 'spare agent process started');
        // One that dies on its own is not replaced until the next launch (a broken claude must not respawn in a loop).
        void proc.exited.then(() => {
          if (this.spare?.proc === proc) this.spare = undefined;
        });
      } catch (err) {
        this.log.warn(
          { err: (err as Error).message },
          'the spare agent process could not start; conversations start their own',
        );
      }
    }, this.delayMs);
    this.timer.unref();
  }
}
