/**
 * /stop on the TUI: Escape (the TUI's own interrupt), then a check that the pane left `busy`.
 * Steers not yet typed are withdrawn; with cancelQueued, those waiting in the TUI's queue are
 * pulled back into the box (Up) and erased first, so they cannot run as the next turn. A pane
 * that stays busy through three Escapes has its process stopped; the next turn resumes it.
 */
import { RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import type { TurnLock } from '../../common/turn-lock.js';
import { clearInputBox } from '../input/injection.js';
import { sleep } from '../pane/pane.js';
import type { PaneHost } from '../pane/pane-host.js';
import type { Delivery, TurnTracker } from '../transcript/turn-tracker.js';

export interface InterruptDeps {
  host: PaneHost;
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
    if (opts.cancelQueued && queued.length) {
      await pane.keys('Up');
      await sleep(300);
      await clearInputBox(pane);
      lock.run(() => {
        for (const d of queued) tracker.drop(d, withdrawn(d));
      });
    }
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
  deps.log.warn(
    { graceMs: deps.graceMs, verdict: look?.verdict },
    'interrupt: the pane stayed busy, stopping its process; the next turn resumes the session',
  );
  await host.kill('interrupt: the pane stayed busy');
  lock.run(() => tracker.finish(turn, { kind: 'interrupted', reason: 'killed_after_interrupt' }));
}
