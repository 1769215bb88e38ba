/**
 * Types a message once the pane can take it, and never before: each attempt looks at the pane
 * while holding it and types only on `ready` (or `busy`, for a steer the TUI queues into the
 * running turn). On `menu` or `not-ready` it lets go of the pane (so an answer to the menu can
 * be selected meanwhile), waits and looks again; past the ready timeout the person is told once.
 * A box in shell mode (`!`, where Enter would run the text as a command) is never typed into: an
 * empty one is left first and the pane looked at again; one with a command in it waits (shell-mode.ts).
 */
import type { Logger } from '../../../ops/logger.js';
import { readMenu } from '../menus/menus.js';
import { type Pane, type PaneLook, sleep } from '../pane/pane.js';
import { TIMING } from '../tmux-launch.js';
import { typeMessage } from './injection.js';
import { leaveShellMode } from './shell-mode.js';

export interface TypingJob {
  /** `ready`: a new turn's message; `typeable`: a steer (ready or busy). */
  accept: 'ready' | 'typeable';
  text: string;
  pane: () => Pane | undefined;
  withPane: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Give up (false) after this long; undefined: wait until cancelled. */
  giveUpAfterMs: number | undefined;
  /** Tell the person after this long that the message waits. */
  tellAfterMs: number;
  cancelled: () => boolean;
  observe: (look: PaneLook) => void;
  tell: (message: string) => void;
  log: Logger;
}

function why(look: PaneLook): string {
  if (look.verdict === 'menu') {
    const q = readMenu(look.text)?.question;
    return `the agent terminal shows a menu${q ? ` (“${q}”)` : ''}`;
  }
  if (look.verdict === 'busy') return 'the agent is still busy with something else';
  if (look.reasons.includes('shell-mode')) return 'the agent terminal is in shell mode with a command typed in it';
  return look.info.dead ? 'the agent terminal closed' : 'the agent terminal is not ready for input';
}

/** True once typed and submitted; false when cancelled or given up. Throws when the pane is gone. */
export async function typeWhenTypeable(job: TypingJob): Promise<boolean> {
  const started = Date.now();
  let told = false;
  for (;;) {
    if (job.cancelled()) return false;
    const pane = job.pane();
    if (!pane) return false;
    const result = await job.withPane(async (): Promise<PaneLook | 'typed' | 'cancelled'> => {
      if (job.cancelled()) return 'cancelled';
      const look = await pane.look();
      job.observe(look);
      const ok = look.verdict === 'ready' || (job.accept === 'typeable' && look.verdict === 'busy');
      // Shell mode is idle but never typed into: left when empty (then looked at again), else waited out.
      if ((await leaveShellMode(pane, look, job.log)) !== 'no') return look;
      if (!ok) return look;
      await typeMessage(pane, job.text, TIMING.enterSettleMs);
      return 'typed';
    });
    if (result === 'typed') return true;
    if (result === 'cancelled') return false;
    const waited = Date.now() - started;
    if (!told && waited >= job.tellAfterMs) {
      told = true;
      job.log.warn(
        { verdict: result.verdict, reasons: result.reasons, waitedMs: waited },
        'message not typed: the pane does not take input',
      );
      job.tell(
        `⏳ Your message is not typed yet: ${why(result)}. It waits and is typed as soon as the terminal ` +
          `takes input (send /stop to cancel).`,
      );
    }
    if (job.giveUpAfterMs !== undefined && waited >= job.giveUpAfterMs) return false;
    await sleep(TIMING.pollMs * 2);
  }
}
