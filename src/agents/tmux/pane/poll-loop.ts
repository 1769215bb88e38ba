/**
 * How a pane's host polls its pane: one tick after each pause (short while a turn runs, long while
 * idle), never two at once; stopped, it ticks no more.
 */
import { TIMING } from '../tmux-launch.js';

export class PollLoop {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly tick: () => Promise<void>,
    private readonly busy: () => boolean,
  ) {}

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    if (this.timer) return;
    const loop = () => {
      this.timer = setTimeout(
        () => void this.tick().finally(() => this.timer && loop()),
        this.busy() ? TIMING.pollMs : TIMING.idlePollMs,
      );
      this.timer.unref();
    };
    loop();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
