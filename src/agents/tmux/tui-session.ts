/**
 * What every session that drives a Claude Code TUI shares, whoever owns the pane (Rudder's own:
 * tmux-session.ts; a person's it is attached to: attach/attached-session.ts): typing only when the
 * pane classifier says the box takes input (ready; busy for a steer, which the TUI folds into the
 * running turn), arrival and attribution from the transcript, menus relayed to the person, /stop as
 * the TUI's own Escape, and what the pane and its transcript say turned into the turn's events.
 *
 *   delivery    deliver.ts, typing.ts, injection.ts, arrival.ts     menus   menu-watch.ts, permission-relay.ts
 *   attribution turn-tracker.ts, tmux-turn.ts                        /stop   interrupt.ts
 */
import { asRudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import { stripControlSequences } from '../../security/control-sequences.js';
import { AgentSessionBase } from '../common/session-base.js';
import type { Capabilities, PermissionAnswer, SteerPromise, SteerResult, UserInput } from '../session.js';
import { steerNow, steerPromise } from '../session.js';
import { interruptTurn } from './commands/interrupt.js';
import { Deliverer } from './input/enter-message.js';
import { type PreparedMessage, prepareMessage } from './input/injection.js';
import { MenuWatch } from './menus/menu-watch.js';
import type { PaneHostHooks, TuiHost, TuiLaunch } from './pane/host.js';
import type { PaneLook } from './pane/pane.js';
import { reportToolsOnlyOnScreen } from './screen/screen-tools.js';
import { TIMING } from './tmux-launch.js';
import type { TmuxTurn } from './tmux-turn.js';
import type { TranscriptEntry } from './transcript/transcript-entries.js';
import { type Delivery, TurnTracker } from './transcript/turn-tracker.js';
import { armTurnTimeout } from './turn-timeout.js';

/** How much of what was typed in the terminal a turn's step shows. */
const TYPED_SHOWN_CHARS = 1000;

export abstract class TuiSession<H extends TuiHost> extends AgentSessionBase<TmuxTurn> {
  protected readonly host: H;
  protected readonly tracker: TurnTracker;
  protected readonly menus: MenuWatch;
  protected lastLook: PaneLook | undefined;
  /** Since when the pane has shown `ready` without a break (undefined: not ready now). */
  private readySince: number | undefined;
  private readonly deliverer: Deliverer;
  /** Slash-command entries seen in the transcript: how a command is seen to take effect. */
  protected readonly commandTexts: string[] = [];

  constructor(
    private readonly tui: TuiLaunch,
    backend: string,
    capabilities: Capabilities,
    /** The pane's host (called in this constructor: it gets the session's logger, `this` is not usable yet). */
    makeHost: (hooks: PaneHostHooks, log: Logger) => H,
  ) {
    super(tui, backend, capabilities);
    this.tracker = new TurnTracker(this.turns, {
      sessionId: () => this.host.sid,
      context: () => this.context(),
      turnStarted: (t) => this.armTimer(t),
      turnEnded: (t) => this.onTurnEnded(t),
      typedInTerminal: (t, text, how) => this.typedInTerminal(t, text, how),
    });
    this.host = makeHost(
      {
        entries: (e) => this.onEntries(e),
        looked: (l) => this.onLook(l),
        died: (detail, screen) => this.onDeath(detail, screen),
        busy: () => this.tracker.inFlight(),
      },
      this.log,
    );
    this.deliverer = new Deliverer({
      launch: tui,
      host: this.host,
      tracker: this.tracker,
      lock: this.lock,
      log: this.log,
      stopped: () => this.stopped,
      context: () => this.context(),
      observe: (look) => this.onLook(look),
      commandsFirst: () => this.commandsFirst(),
    });
    this.menus = new MenuWatch({
      pane: () => (this.host.live ? this.host.pane : undefined),
      withPane: (fn) => this.host.withPane(fn),
      refresh: () => this.host.readTranscript(),
      autoAllow: tui.tmux.autoAllow,
      permissionMode: tui.permissionMode,
      readyTimeoutMs: tui.tmux.readyTimeoutMs,
      log: this.log,
    });
  }

  sessionId(): string | undefined {
    return this.host.sid;
  }

  protected inFlight(): boolean {
    return this.tracker.inFlight();
  }

  protected override dead(): boolean {
    return this.host.dead;
  }

  /** Work queued to run before the next message is typed (the TUI's own slash commands). */
  protected commandsFirst(): Promise<void> {
    return Promise.resolve();
  }

  /** A turn ended (its timer is cleared and its menus forgotten already). */
  protected turnOver(_turn: TmuxTurn): void {}

  steer(input: UserInput): SteerPromise {
    const now = this.lock.run((): SteerResult | { blocked: string } | Delivery => {
      if (this.stopped) return { outcome: 'process-dead' };
      if (!this.tracker.inFlight()) return { outcome: 'ran-as-turn', turn: this.beginTurn([input]) };
      const blocked = this.steerBlocker();
      if (blocked) return { blocked };
      let msg: PreparedMessage;
      try {
        msg = this.prepare([input]);
      } catch (err) {
        return { blocked: `the message could not be prepared (${(err as Error).message})` };
      }
      const d = this.delivery(msg, [input.id], 'steer');
      void this.deliverer.steer(d, msg);
      return d;
    });
    if ('blocked' in now) return steerNow({ outcome: 'process-dead' }, now.blocked);
    if ('outcome' in now) return steerNow(now);
    return steerPromise(new Promise<SteerResult>((resolve, reject) => (now.settle = { resolve, reject })), true);
  }

  /** Escape, then checks the pane left busy; what a pane that stays busy gets is its host's (TuiHost.lastResort). */
  interrupt(opts: { cancelQueued?: boolean } = {}): Promise<void> {
    const deps = {
      host: this.host,
      tracker: this.tracker,
      lock: this.lock,
      log: this.log,
      graceMs: this.interruptGraceMs,
      context: () => this.context(),
    };
    return interruptTurn(deps, opts);
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    return this.host.live && this.menus.answer(requestId, answer);
  }

  // ---- turns and deliveries ----

  protected override context(): Record<string, unknown> {
    return { conversationId: this.conversationId, pid: this.host.pid, pane: this.host.name };
  }

  /** The turn and every message on its way fail with the reason; menus waiting are forgotten. Inside the lock. */
  protected endAll(code: 'AGENT_STOPPED' | 'AGENT_CRASHED', detail: string): void {
    const turn = this.tracker.current;
    if (turn) this.tracker.fail(turn, this.failure(code, detail, turn.inputIds()));
    for (const d of [...this.tracker.deliveries.values()]) this.tracker.drop(d, this.failure(code, detail, d.inputIds));
    this.menus.clear();
  }

  private prepare(inputs: UserInput[]): PreparedMessage {
    return prepareMessage(inputs, {
      thresholdBytes: this.tui.tmux.pasteFileThresholdBytes,
      fileDir: this.tui.tmux.messageDir,
    });
  }

  private delivery(msg: PreparedMessage, inputIds: string[], kind: Delivery['kind']): Delivery {
    const d: Delivery = {
      marker: msg.marker,
      inputIds,
      kind,
      writtenDuring: kind === 'steer' ? this.tracker.current : undefined,
      turn: undefined,
      arrived: false,
      queued: false,
    };
    this.tracker.deliveries.set(d.marker, d);
    return d;
  }

  protected beginTurn(inputs: UserInput[], turnId?: string): TmuxTurn {
    let msg: PreparedMessage;
    try {
      msg = this.prepare(inputs);
    } catch (err) {
      // The long-message file could not be written: the turn fails as undelivered and the lane keeps it owed.
      const turn = this.tracker.begin(
        inputs.map((i) => i.id),
        undefined,
        turnId,
      );
      this.tracker.fail(
        turn,
        asRudderError(err, 'AGENT_UNDELIVERED', { ...this.context(), unanswered: turn.inputIds() }),
      );
      return turn;
    }
    const d = this.delivery(
      msg,
      inputs.map((i) => i.id),
      'turn',
    );
    const turn = this.tracker.begin(d.inputIds, d, turnId);
    void this.deliverer.turn(turn, d, msg);
    return turn;
  }

  /** A steer is not typed while the terminal cannot take it, or before the turn's own message is in. */
  private steerBlocker(): string | undefined {
    if (this.menus.waiting()) return 'the agent terminal shows a question waiting for your answer';
    const turn = this.tracker.current;
    if (turn && !turn.arrived) return 'the previous message is still being delivered to the agent terminal';
    const v = this.lastLook?.verdict;
    if (v === 'menu') return 'the agent terminal shows a menu';
    if (v === 'not-ready') return 'the agent terminal is not ready for input';
    return undefined;
  }

  // ---- what the pane and its transcript say ----

  private onEntries(entries: TranscriptEntry[]): void {
    for (const e of entries) if (e.kind === 'command') this.commandTexts.push(e.text.slice(0, 300));
    this.lock.run(() => this.tracker.route(entries));
    if (entries.some((e) => e.kind === 'prompt' || e.kind === 'queue')) this.host.persistSessionId();
  }

  /** Shown in the turn as the person typed it in the terminal: never as a message of theirs from here. */
  private typedInTerminal(turn: TmuxTurn, text: string, how: 'turn' | 'steered'): void {
    const clean = stripControlSequences(text).trim();
    const shown = clean.length > TYPED_SHOWN_CHARS ? `${clean.slice(0, TYPED_SHOWN_CHARS)}…` : clean;
    const where = how === 'steered' ? ', taken into the running turn' : '';
    turn.emit({ type: 'status', message: `⌨️ Typed in the terminal${where}: ${shown}`, notify: true });
  }

  protected onLook(look: PaneLook): void {
    this.lastLook = look;
    this.readySince = look.verdict === 'ready' ? (this.readySince ?? Date.now()) : undefined;
    const turn = this.tracker.current;
    this.menus.observe(look, turn);
    // No end marker (an unknown way to end a turn): the pane idle and the transcript quiet for a while, nothing queued.
    if (
      turn?.quiet(this.readySince, Date.now(), TIMING.quietEndMs) &&
      !this.menus.waiting() &&
      this.tracker.waiting().length === 0
    ) {
      this.log.info({ turnId: turn.id }, 'turn ended without an end marker: the pane is idle and the transcript quiet');
      this.lock.run(() =>
        this.tracker.finish(
          turn,
          turn.interruptRequested
            ? { kind: 'interrupted', reason: 'interrupted' }
            : { kind: 'done', reason: 'pane_idle' },
        ),
      );
    }
  }

  protected onDeath(detail: string, screen: string): void {
    this.lock.run(() => {
      const turn = this.tracker.current;
      // A TUI killed early may have started a tool its transcript never got to name.
      if (turn)
        reportToolsOnlyOnScreen(
          turn,
          [...this.tracker.deliveries.values()].find((d) => d.turn === turn)?.marker,
          screen,
        );
      this.endAll('AGENT_CRASHED', detail);
    });
  }

  private armTimer(turn: TmuxTurn): void {
    const timeoutMs = this.turnTimeoutMs;
    armTurnTimeout(turn, {
      timeoutMs,
      menuWaiting: () => this.menus.waiting(),
      neverTyped: (t) => {
        this.log.warn({ timeoutMs }, 'turn timeout before the message reached the agent');
        const error = this.failure(
          'AGENT_NOT_READY',
          `The terminal did not take the message within ${Math.round(timeoutMs / 1000)} s.`,
          t.inputIds(),
        );
        this.lock.run(() => this.tracker.fail(t, error));
      },
      expired: () => {
        this.log.warn({ timeoutMs }, 'turn timeout: interrupting');
        this.interrupt().catch((err: Error) =>
          this.log.warn({ err: err.message }, 'turn timeout: the interrupt failed; the pane poll reports what follows'),
        );
      },
    });
    this.host.startPolling();
  }

  private onTurnEnded(turn: TmuxTurn): void {
    clearTimeout(turn.timer);
    this.menus.forgetTurn(turn);
    if (turn.arrived) this.host.persistSessionId(true);
    this.turnOver(turn);
  }
}
