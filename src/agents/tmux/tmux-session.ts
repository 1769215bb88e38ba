/**
 * The interactive backend: Claude Code's TUI in a detached tmux session, one per conversation.
 * Typing happens only when the pane classifier says the box takes input (ready; busy for a steer,
 * which the TUI queues into the running turn), never into a menu or a booting screen. What counts
 * is the transcript: a message is delivered when it shows there, replies are read from its
 * assistant entries as they are written, and a turn ends at its end marker (turn_duration, an API
 * error, an interrupt marker), or, lacking one, when the pane is idle and the transcript quiet.
 *
 *   pane life   pane-host.ts, pane-process.ts (spawn, dialogs)   delivery   deliver.ts, typing.ts,
 *   attribution turn-tracker.ts, tmux-turn.ts                     injection.ts, arrival.ts
 *   menus       menu-watch.ts, menus.ts, permission-relay.ts      /stop      interrupt.ts
 *   /clear, /model  command-queue.ts, slash-commands.ts
 */
import { asRudderError } from '../../errors.js';
import { AgentSessionBase } from '../common/session-base.js';
import type { Capabilities, PermissionAnswer, SteerPromise, SteerResult, UserInput } from '../session.js';
import { PLAIN_CAPABILITIES, steerNow, steerPromise } from '../session.js';
import { CommandQueue } from './commands/command-queue.js';
import { interruptTurn } from './commands/interrupt.js';
import { clearInTui, modelInTui, type TuiCommandDeps } from './commands/slash-commands.js';
import { Deliverer } from './input/enter-message.js';
import { type PreparedMessage, prepareMessage } from './input/injection.js';
import { MenuWatch } from './menus/menu-watch.js';
import type { PaneLook } from './pane/pane.js';
import { PaneHost } from './pane/pane-host.js';
import { reportToolsOnlyOnScreen } from './screen/screen-tools.js';
import { TIMING, type TmuxLaunch } from './tmux-launch.js';
import type { TmuxTurn } from './tmux-turn.js';
import type { TranscriptEntry } from './transcript/transcript-entries.js';
import { type Delivery, TurnTracker } from './transcript/turn-tracker.js';
import { armTurnTimeout } from './turn-timeout.js';

/** Named states of the pane, for logs and status; recovery from any of them is explicit. */
export type TmuxPhase = 'not-started' | 'starting' | 'idle' | 'working' | 'asking-person' | 'dead' | 'stopped';

export class ClaudeTmuxSession extends AgentSessionBase<TmuxTurn> {
  /** What this backend can do, known before a session exists (the agent table and a node's heartbeat say it). */
  static readonly CAPABILITIES: Capabilities = {
    ...PLAIN_CAPABILITIES,
    steer: 'native',
    clearContext: true,
    setModel: true,
  };

  private readonly launch: TmuxLaunch;
  private readonly host: PaneHost;
  private readonly tracker: TurnTracker;
  private readonly menus: MenuWatch;
  private lastLook: PaneLook | undefined;
  /** Since when the pane has shown `ready` without a break (undefined: not ready now). */
  private readySince: number | undefined;
  private readonly commands: CommandQueue;
  private readonly deliverer: Deliverer;
  /** Slash-command entries seen in the transcript: how a command is seen to take effect. */
  private readonly commandTexts: string[] = [];

  constructor(launch: TmuxLaunch) {
    super(launch, 'claude-tmux', ClaudeTmuxSession.CAPABILITIES);
    this.launch = launch;
    this.tracker = new TurnTracker(this.turns, {
      sessionId: () => this.host.sid,
      context: () => this.context(),
      turnStarted: (t) => this.armTimer(t),
      turnEnded: (t) => this.onTurnEnded(t),
    });
    this.host = new PaneHost(launch, this.log, {
      entries: (e) => this.onEntries(e),
      looked: (l) => this.onLook(l),
      died: (detail, screen) => this.onDeath(detail, screen),
      busy: () => this.tracker.inFlight(),
    });
    this.commands = new CommandQueue(
      () => this.tracker.inFlight(),
      () => this.stopped,
    );
    this.deliverer = new Deliverer({
      launch,
      host: this.host,
      tracker: this.tracker,
      lock: this.lock,
      log: this.log,
      stopped: () => this.stopped,
      context: () => this.context(),
      observe: (look) => this.onLook(look),
      commandsFirst: () => this.commands.drain(),
    });
    this.menus = new MenuWatch({
      pane: () => (this.host.live ? this.host.pane : undefined),
      withPane: (fn) => this.host.withPane(fn),
      refresh: () => this.host.readTranscript(),
      autoAllow: launch.tmux.autoAllow,
      permissionMode: launch.permissionMode,
      readyTimeoutMs: launch.tmux.readyTimeoutMs,
      log: this.log,
    });
  }

  /** The tmux session name (`tmux -L <socket> attach -t =<name>` to watch it). */
  get paneName(): string {
    return this.host.name;
  }

  sessionId(): string | undefined {
    return this.host.sid;
  }

  pid(): number | undefined {
    return this.host.live ? this.host.pid : undefined;
  }

  protected inFlight(): boolean {
    return this.tracker.inFlight();
  }

  protected override dead(): boolean {
    return this.host.dead;
  }

  phase(): TmuxPhase {
    if (this.stopped) return 'stopped';
    if (this.host.starting()) return 'starting';
    if (this.host.dead && !this.tracker.inFlight()) return 'dead';
    if (!this.host.live) return 'not-started';
    if (this.menus.waiting()) return 'asking-person';
    return this.tracker.inFlight() ? 'working' : 'idle';
  }

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

  /** Escape, then checks the pane left busy; a pane that stays busy has its process stopped (the next turn resumes). */
  interrupt(opts: { cancelQueued?: boolean } = {}): Promise<void> {
    return interruptTurn(
      {
        host: this.host,
        tracker: this.tracker,
        lock: this.lock,
        log: this.log,
        graceMs: this.interruptGraceMs,
        context: () => this.context(),
      },
      opts,
    );
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    return this.host.live && this.menus.answer(requestId, answer);
  }

  /** Clears the context with the TUI's /clear once no turn runs; the new session id is persisted. */
  override clearContext(): Promise<void> {
    return this.commands.add(() => clearInTui(this.commandDeps()));
  }

  /** Switches the model with the TUI's /model once no turn runs; a later respawn uses it too. */
  override setModel(model: string | undefined): Promise<void> {
    this.host.model = model ?? this.launch.model;
    return this.commands.add(() => modelInTui(this.commandDeps(), this.host.model ?? 'default'));
  }

  async stop(reason: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.lock.run(() => this.endAll('AGENT_STOPPED', reason));
    await this.host.kill(reason, true);
  }

  // ---- turns and deliveries ----

  protected override context(): Record<string, unknown> {
    return { conversationId: this.conversationId, pid: this.host.pid, pane: this.host.name };
  }

  /** The turn and every message on its way fail with the reason; menus waiting are forgotten. Inside the lock. */
  private endAll(code: 'AGENT_STOPPED' | 'AGENT_CRASHED', detail: string): void {
    const turn = this.tracker.current;
    if (turn) this.tracker.fail(turn, this.failure(code, detail, turn.inputIds()));
    for (const d of [...this.tracker.deliveries.values()]) this.tracker.drop(d, this.failure(code, detail, d.inputIds));
    this.menus.clear();
  }

  private prepare(inputs: UserInput[]): PreparedMessage {
    return prepareMessage(inputs, {
      thresholdBytes: this.launch.tmux.pasteFileThresholdBytes,
      fileDir: this.launch.tmux.messageDir,
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

  private onLook(look: PaneLook): void {
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

  private onDeath(detail: string, screen: string): void {
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
        this.log.warn({ timeoutMs, phase: this.phase() }, 'turn timeout before the message reached the agent');
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
    queueMicrotask(() => void this.commands.drain());
  }

  private commandDeps(): TuiCommandDeps {
    return {
      host: this.host,
      log: this.log,
      readyTimeoutMs: this.launch.tmux.readyTimeoutMs,
      context: this.context(),
      commandTexts: this.commandTexts,
    };
  }
}
