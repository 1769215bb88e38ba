/**
 * /stop on the TUI: Escape (the TUI's own interrupt), then a check that the pane left `busy`.
 * Steers not yet typed are withdrawn; with cancelQueued, those waiting in the TUI's queue are
 * pulled back into the box (Up) and erased first, so they cannot run as the next turn (not in a pane a
 * person types in too: see pullBackQueued). A pane that
 * stays busy through three Escapes is the host's to deal with (TuiHost.lastResort): Rudder's own has
 * its process stopped (the next turn resumes it); a person's is never touched, and the turn goes on.
 */
import { RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import type { TurnLock } from '../../common/turn-lock.js';
import { clearInputBox } from '../input/injection.js';
import type { TuiHost } from '../pane/host.js';
import { type Pane, sleep } from '../pane/pane.js';
import type { Delivery, TurnTracker } from '../transcript/turn-tracker.js';

export interface InterruptDeps {
  host: TuiHost;
  tracker: TurnTracker;
  lock: TurnLock;
  log: Logger;
  graceMs: number;
  context: () => Record<string, unknown>;
}

export async function interruptTurn(deps: InterruptDeps, opts: { cancelQueued?: boolean }): Promise<void> {
  const { host, tracker, lock } = deps;
  const turn = tracker.current;
  const waiting = () => tracker.waiting();
  if (!turn && waiting().length === 0) return;
  if (turn) turn.interruptRequested = true;
  const withdrawn = (d: Delivery) =>
    new RudderError('AGENT_STOPPED', 'Withdrawn by an interrupt before the agent took it in.', {
      ...deps.context(),
      unanswered: d.inputIds,
    });
  if (opts.cancelQueued)
    lock.run(() => {
      for (const d of waiting().filter((d) => !d.arrived)) tracker.drop(d, withdrawn(d));
    });
  const pane = host.pane;
  if (!host.live || !pane || (turn && !turn.arrived)) {
    // Nothing reached the agent yet: the message is withdrawn before it was typed.
    if (turn) lock.run(() => tracker.finish(turn, { kind: 'interrupted', reason: 'withdrawn_before_typing' }));
    return;
  }
  await host.withPane(async () => {
    const queued = waiting().filter((d) => d.queued);
    if (opts.cancelQueued && queued.length && (await pullBackQueued(pane, host.shared)))
      lock.run(() => {
        for (const d of queued) tracker.drop(d, withdrawn(d));
      });
    await pane.keys('Escape');
  });
  if (!turn) return;
  for (let round = 0; round < 3 && !turn.isSettled() && host.live; round++) {
    const left = await pane.waitFor((l) => l.verdict !== 'busy', deps.graceMs / 3);
    host.readTranscript();
    if (!left && host.live) await host.withPane(() => pane.keys('Escape'));
  }
  // The interrupt marker can reach the transcript a moment after the pane left busy.
  for (let wait = 0; wait < 10 && !turn.isSettled() && host.live; wait++)
    await sleep(100).then(() => host.readTranscript());
  if (turn.isSettled()) return;
  const look = host.live ? await pane.look().catch(() => undefined) : undefined;
  if (look && look.verdict !== 'busy' && look.verdict !== 'not-ready') {
    // The pane left busy without an interrupt marker: the turn is over all the same.
    lock.run(() => tracker.finish(turn, { kind: 'interrupted', reason: 'interrupted' }));
    return;
  }
  deps.log.warn({ graceMs: deps.graceMs, verdict: look?.verdict }, 'interrupt: the pane stayed busy');
  if (await host.lastResort('interrupt: the pane stayed busy'))
    lock.run(() => tracker.finish(turn, { kind: 'interrupted', reason: 'killed_after_interrupt' }));
  else turn.emit({ type: 'status', notify: true, message: STILL_BUSY });
}

const STILL_BUSY =
  '⚠️ The terminal did not stop after Escape. It is yours: Rudder never kills it. Stop the turn there, or ' +
  'send /stop again.';

/**
 * The TUI's queue pulled back into the box (Up) and erased. Never in a shared pane: the queue may hold
 * the person's text too; a steer of Rudder's left there runs as the next turn, which the lane stops at
 * once (it was sent before the /stop).
 */
async function pullBackQueued(pane: Pane, shared: boolean): Promise<boolean> {
  if (shared) return false;
  await pane.keys('Up');
  await sleep(300);
  return clearInputBox(pane);
}
