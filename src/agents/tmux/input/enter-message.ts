/**
 * Getting one message into the TUI: a live pane (spawned or resumed), commands queued before it
 * run first, then it is typed when the pane takes it, and confirmed by the transcript. A turn's
 * own message waits for the pane as long as the turn lives (the person is told past the ready
 * timeout); so does a steer, which runs as the next turn when the running one ends first.
 */
import { asRudderError, RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import type { TurnLock } from '../../common/turn-lock.js';
import type { TuiHost, TuiLaunch } from '../pane/host.js';
import type { PaneLook } from '../pane/pane.js';
import type { TmuxTurn } from '../tmux-turn.js';
import type { Delivery, TurnTracker } from '../transcript/turn-tracker.js';
import { confirmArrival } from './arrival.js';
import { clearInputBox, type PreparedMessage } from './injection.js';
import { type TypingJob, typeWhenTypeable } from './typing.js';

export interface DeliverDeps {
  launch: TuiLaunch;
  host: TuiHost;
  tracker: TurnTracker;
  lock: TurnLock;
  log: Logger;
  stopped: () => boolean;
  context: () => Record<string, unknown>;
  /** Every look taken while waiting to type (menus seen meanwhile are relayed). */
  observe: (look: PaneLook) => void;
  /** Slash commands queued before this message run first. */
  commandsFirst: () => Promise<void>;
}

export class Deliverer {
  constructor(private readonly deps: DeliverDeps) {}

  async turn(turn: TmuxTurn, d: Delivery, msg: PreparedMessage): Promise<void> {
    const { host, lock, tracker } = this.deps;
    try {
      await host.ensureLive(this.deps.context());
      const note = host.takeNewSessionNote();
      if (note)
        turn.emit({ type: 'status', notify: note.notify, message: `${note.notify ? '⚠️ ' : ''}${note.message}` });
      await this.deps.commandsFirst();
      if (await typeWhenTypeable(this.job(turn, d, msg, 'ready'))) await this.arrival(d, msg);
    } catch (err) {
      if (this.deps.stopped() || turn.isSettled()) return;
      const error = asRudderError(err, 'AGENT_SPAWN_FAILED', { ...this.deps.context(), unanswered: turn.inputIds() });
      this.deps.log.warn({ code: error.code, err: error.message }, 'turn failed before its message reached the agent');
      lock.run(() => tracker.fail(turn, error));
    }
  }

  /**
   * A steer is typed while a turn runs (ready or busy: the TUI queues it into the turn). While the
   * pane cannot take it (a menu, not ready) it waits as long as that turn lives; a turn that ends
   * first leaves it to run as the next turn of its own, and steer() resolves 'ran-as-turn' with it.
   */
  async steer(d: Delivery, msg: PreparedMessage): Promise<void> {
    const { lock, tracker } = this.deps;
    try {
      for (let during = d.writtenDuring; during; during = tracker.current) {
        if (await typeWhenTypeable(this.job(during, d, msg, 'typeable'))) return void (await this.arrival(d, msg));
        if (this.deps.stopped() || !tracker.deliveries.has(d.marker)) return;
      }
    } catch (err) {
      const error = asRudderError(err, 'AGENT_UNDELIVERED', { ...this.deps.context(), unanswered: d.inputIds });
      this.deps.log.warn(
        { code: error.code, marker: d.marker },
        'steer not delivered; it stays owed and runs after the turn',
      );
      return lock.run(() => tracker.drop(d, error));
    }
    const next = lock.run(() => (tracker.current || !tracker.deliveries.has(d.marker) ? undefined : this.ownTurn(d)));
    if (next) await this.turn(next, d, msg);
    else if (tracker.deliveries.has(d.marker)) void this.steer(d, msg);
  }

  /** The steer becomes a turn of its own (inside the lock, with no turn current). */
  private ownTurn(d: Delivery): TmuxTurn {
    const { tracker, log } = this.deps;
    d.kind = 'turn';
    const next = tracker.begin(d.inputIds, d);
    log.info(
      { marker: d.marker, inputs: d.inputIds },
      'the turn ended before the steer could be typed: it runs as the next turn',
    );
    d.settle?.resolve({ outcome: 'ran-as-turn', turn: next });
    d.settle = undefined;
    return next;
  }

  private job(turn: TmuxTurn | undefined, d: Delivery, msg: PreparedMessage, accept: TypingJob['accept']): TypingJob {
    const { host, tracker, launch } = this.deps;
    return {
      accept,
      text: msg.typed,
      shared: host.shared,
      pane: () => (host.live ? host.pane : undefined),
      withPane: (fn) => host.withPane(fn),
      giveUpAfterMs: undefined,
      tellAfterMs: launch.tmux.readyTimeoutMs,
      cancelled: () => this.deps.stopped() || !tracker.deliveries.has(d.marker) || !!turn?.isSettled(),
      observe: this.deps.observe,
      // About the message that waits, not the one the running turn already took in.
      tell: (message) =>
        (turn ?? tracker.current)?.emit({ type: 'status', notify: true, message, inputIds: d.inputIds }),
      log: this.deps.log,
    };
  }

  /** Never logs success before the transcript shows the message. */
  private async arrival(d: Delivery, msg: PreparedMessage): Promise<void> {
    const { host, tracker, launch, log } = this.deps;
    const pane = host.pane!;
    const outcome = await confirmArrival({
      pane,
      typed: host.shared ? msg.typed : undefined,
      arrived: () => (host.readTranscript(), d.arrived),
      withPane: (fn) => host.withPane(fn),
      attemptMs: launch.tmux.arrivalTimeoutMs,
      retries: launch.tmux.arrivalRetries,
      abandoned: () => this.deps.stopped() || !host.live || !tracker.deliveries.has(d.marker),
      onRetry: (n) =>
        log.warn({ marker: d.marker, attempt: n }, 'message not in the transcript yet: Enter pressed again'),
    });
    if (outcome === 'arrived')
      return void log.info(
        { marker: d.marker, inputs: d.inputIds, savedTo: msg.file },
        'message arrived in the transcript',
      );
    if (outcome === 'abandoned') return;
    if (host.live) await host.withPane(() => clearInputBox(pane, host.shared ? msg.typed : undefined));
    throw new RudderError(
      'AGENT_UNDELIVERED',
      `It was submitted ${launch.tmux.arrivalRetries + 1} time(s) but never showed up in the session transcript.`,
      { ...this.deps.context(), unanswered: d.inputIds },
    );
  }
}
