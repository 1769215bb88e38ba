/**
 * A message counts as delivered when the transcript shows it: a prompt entry, or the TUI's queue
 * taking it in, containing the message's marker. Typing is not arrival: the Enter after a paste
 * is sometimes eaten. Until it shows, Enter is pressed again (a bounded number of times) while
 * the text still sits in the box, and never while a menu is up.
 */

import { type Pane, sleep } from '../pane/pane.js';
import { boxHoldsOnly } from '../screen/pane-input.js';
import { boxIsEmpty } from './injection.js';
import { inShellMode } from './shell-mode.js';

export interface ArrivalOptions {
  pane: Pane;
  /** In a pane a person types in too: Enter is pressed again only while the box holds this alone. */
  typed?: string;
  /** Reads the transcript and says whether the marker has shown up. */
  arrived: () => boolean;
  /** Runs a step while holding the pane, so a retried Enter never interleaves with other keys. */
  withPane: <T>(fn: () => Promise<T>) => Promise<T>;
  /** How long each attempt waits for the transcript. */
  attemptMs: number;
  /** Extra Enter presses at most. */
  retries: number;
  /** Gives up at once when the session went away (stopped, pane dead). */
  abandoned: () => boolean;
  onRetry?: (attempt: number) => void;
  stepMs?: number;
}

export type ArrivalOutcome = 'arrived' | 'undelivered' | 'abandoned';

async function waitArrived(opts: ArrivalOptions, ms: number): Promise<ArrivalOutcome | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (opts.arrived()) return 'arrived';
    if (opts.abandoned()) return 'abandoned';
    if (Date.now() >= deadline) return undefined;
    await sleep(opts.stepMs ?? 100);
  }
}

export async function confirmArrival(opts: ArrivalOptions): Promise<ArrivalOutcome> {
  for (let attempt = 0; ; attempt++) {
    const seen = await waitArrived(opts, opts.attemptMs);
    if (seen) return seen;
    if (attempt >= opts.retries) return 'undelivered';
    const pressed = await opts.withPane(async () => {
      if (opts.arrived()) return false;
      const look = await opts.pane.look();
      // Enter at a menu selects an option; text already gone from the box was submitted.
      if (look.verdict !== 'ready' && look.verdict !== 'busy') return false;
      // Enter in shell mode runs the box as a shell command: the message is not there.
      if (inShellMode(look)) return false;
      if (boxIsEmpty(await opts.pane.ansi()) !== false) return false;
      if (opts.typed !== undefined && !boxHoldsOnly(look.text, opts.typed)) return false;
      await opts.pane.keys('Enter');
      return true;
    });
    if (pressed) opts.onRetry?.(attempt + 1);
  }
}
