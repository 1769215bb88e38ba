/**
 * The input box in shell mode (`!`): idle, so the classifier reads it `ready` (reason
 * `shell-mode`), but Enter there runs the text as a shell command. Nothing is typed into it: an
 * empty one is left first (Backspace goes back to the input box and loses nothing, then the pane
 * is looked at again); one with a command typed in it is someone's, so it waits.
 */
import type { Logger } from '../../../ops/logger.js';
import { type Pane, type PaneLook, sleep } from '../pane/pane.js';
import { boxIsEmpty } from './injection.js';

/** How long an empty shell-mode box must stay empty before it is left. */
const SETTLE_MS = 300;

export const inShellMode = (look: PaneLook): boolean => look.reasons.includes('shell-mode');

/** `no`: not in shell mode, go on; `left`: Backspace pressed, look again; `occupied`: a command is typed there. */
export async function leaveShellMode(pane: Pane, look: PaneLook, log?: Logger): Promise<'no' | 'left' | 'occupied'> {
  if (!inShellMode(look)) return 'no';
  if (boxIsEmpty(await pane.ansi()) !== true) return 'occupied';
  // Someone may be typing there right now: the box must stay empty a moment before Backspace goes in.
  await sleep(SETTLE_MS);
  const again = await pane.look();
  if (!inShellMode(again)) return 'left';
  if (boxIsEmpty(await pane.ansi()) !== true) return 'occupied';
  await pane.keys('BSpace');
  log?.info('left the empty shell mode of the input box before typing');
  return 'left';
}
