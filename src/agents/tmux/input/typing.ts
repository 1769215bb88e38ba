/**
 * Types a message once the pane can take it, and never before: each attempt looks at the pane
 * while holding it and types only on `ready` (or `busy`, for a steer the TUI queues into the
 * running turn). On `menu` or `not-ready` it lets go of the pane (so an answer to the menu can
 * be selected meanwhile), waits and looks again; past the ready timeout the person is told once.
 * A box in shell mode (`!`, where Enter would run the text as a command) is never typed into: an
 * empty one is left first and the pane looked at again; one with a command in it waits (shell-mode.ts).
 * In a pane a person types in too (`shared`), a box holding text Rudder did not type, or a pane in
 * copy mode, is someone at work: the message waits, and the person is told at once.
 */
import type { Logger } from '../../../ops/logger.js';
import { readMenu } from '../menus/menus.js';
import { type Pane, type PaneLook, sleep } from '../pane/pane.js';
import { TIMING } from '../tmux-launch.js';
import { boxIsEmpty, typeMessage } from './injection.js';
import { inShellMode, leaveShellMode } from './shell-mode.js';

export interface TypingJob {
  /** `ready`: a new turn's message; `typeable`: a steer (ready or busy). */
  accept: 'ready' | 'typeable';
  text: string;
  /** A person types in this pane too (TuiHost.shared). */
  shared?: boolean;
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

/** Reasons a shared pane adds to a look it does not type into: someone is at work in it. */
const SOMEONE_TYPING = 'someone-typing';
const SOMEONE_SCROLLING = 'copy-mode';
const TYPED_OVER = 'typed-over';

function why(look: PaneLook): string {
  if (look.reasons.includes(SOMEONE_TYPING))
    return 'someone is typing in the terminal (its input box holds text Rudder did not type)';
  if (look.reasons.includes(SOMEONE_SCROLLING)) return 'someone is scrolling back in the terminal (copy mode)';
  if (look.reasons.includes(TYPED_OVER))
    return (
      'someone typed in the terminal as the message was pasted, so it was not sent; it is typed once the box ' +
      'is empty'
    );
  if (look.verdict === 'menu') {
    const q = readMenu(look.text)?.question;
    return `the agent terminal shows a menu${q ? ` (“${q}”)` : ''}`;
  }
  if (look.verdict === 'busy') return 'the agent is still busy with something else';
  if (look.reasons.includes('shell-mode')) return 'the agent terminal is in shell mode with a command typed in it';
  return look.info.dead ? 'the agent terminal closed' : 'the agent terminal is not ready for input';
}

/** In a shared pane, why the person's work keeps Rudder from typing now (a reason for `why`); undefined: free. */
async function personAtWork(pane: Pane, look: PaneLook): Promise<string | undefined> {
  if (look.info.inMode) return SOMEONE_SCROLLING;
  return boxIsEmpty(await pane.ansi()) === false ? SOMEONE_TYPING : undefined;
}

/** One attempt while holding the pane: typed, or the look that says why not. */
async function attempt(job: TypingJob, pane: Pane): Promise<PaneLook | 'typed' | 'cancelled'> {
  if (job.cancelled()) return 'cancelled';
  const look = await pane.look();
  job.observe(look);
  const ok = look.verdict === 'ready' || (job.accept === 'typeable' && look.verdict === 'busy');
  // A `!` in a shared pane is someone starting a shell command: theirs to finish, never Rudder's to erase.
  if (job.shared && inShellMode(look)) return { ...look, reasons: [...look.reasons, SOMEONE_TYPING] };
  // Shell mode is idle but never typed into: left when empty (then looked at again), else waited out.
  if ((await leaveShellMode(pane, look, job.log)) !== 'no') return look;
  if (!ok) return look;
  const busyPerson = job.shared ? await personAtWork(pane, look) : undefined;
  if (busyPerson) return { ...look, reasons: [...look.reasons, busyPerson] };
  if (await typeMessage(pane, job.text, TIMING.enterSettleMs, job.shared)) return 'typed';
  return { ...look, reasons: [...look.reasons, TYPED_OVER] };
}

const personReason = (look: PaneLook) =>
  [SOMEONE_TYPING, SOMEONE_SCROLLING, TYPED_OVER].some((r) => look.reasons.includes(r));

/** True once typed and submitted; false when cancelled or given up. Throws when the pane is gone. */
export async function typeWhenTypeable(job: TypingJob): Promise<boolean> {
  const started = Date.now();
  let told = false;
  for (;;) {
    if (job.cancelled()) return false;
    const pane = job.pane();
    if (!pane) return false;
    const result = await job.withPane(() => attempt(job, pane));
    if (result === 'typed') return true;
    if (result === 'cancelled') return false;
    const waited = Date.now() - started;
    // Someone at work in the terminal is told at once: it is why nothing happens, and only they can change it.
    if (!told && (waited >= job.tellAfterMs || personReason(result))) {
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
