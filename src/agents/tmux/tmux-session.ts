/**
 * The interactive backend: Claude Code's TUI in a detached tmux session of Rudder's own, one per
 * conversation. Typing happens only when the pane classifier says the box takes input (ready; busy
 * for a steer, which the TUI queues into the running turn), never into a menu or a booting screen.
 * What counts is the transcript: a message is delivered when it shows there, replies are read from
 * its assistant entries as they are written, and a turn ends at its end marker (turn_duration, an API
 * error, an interrupt marker), or, lacking one, when the pane is idle and the transcript quiet. What
 * any TUI session does is tui-session.ts; this one owns its pane:
 *
 *   pane life   pane-host.ts, pane-process.ts (spawn, dialogs, respawn with --resume, kill)
 *   /clear, /model  command-queue.ts, slash-commands.ts
 */
import type { Capabilities } from '../session.js';
import { PLAIN_CAPABILITIES } from '../session.js';
import { CommandQueue } from './commands/command-queue.js';
import { clearInTui, modelInTui, type TuiCommandDeps } from './commands/slash-commands.js';
import { PaneHost } from './pane/pane-host.js';
import type { TmuxLaunch } from './tmux-launch.js';
import { TuiSession } from './tui-session.js';

/** Named states of the pane, for logs and status; recovery from any of them is explicit. */
export type TmuxPhase = 'not-started' | 'starting' | 'idle' | 'working' | 'asking-person' | 'dead' | 'stopped';

export class ClaudeTmuxSession extends TuiSession<PaneHost> {
  /** What this backend can do, known before a session exists (the agent table and a node's heartbeat say it). */
  static readonly CAPABILITIES: Capabilities = {
    ...PLAIN_CAPABILITIES,
    steer: 'native',
    clearContext: true,
    setModel: true,
  };

  private readonly launch: TmuxLaunch;
  private readonly commands: CommandQueue;

  constructor(launch: TmuxLaunch) {
    super(launch, 'claude-tmux', ClaudeTmuxSession.CAPABILITIES, (hooks, log) => new PaneHost(launch, log, hooks));
    this.launch = launch;
    this.commands = new CommandQueue(
      () => this.tracker.inFlight(),
      () => this.stopped,
    );
  }

  /** The tmux session name (`tmux -L <socket> attach -t =<name>` to watch it). */
  get paneName(): string {
    return this.host.name;
  }

  pid(): number | undefined {
    return this.host.live ? this.host.pid : undefined;
  }

  phase(): TmuxPhase {
    if (this.stopped) return 'stopped';
    if (this.host.starting()) return 'starting';
    if (this.host.dead && !this.tracker.inFlight()) return 'dead';
    if (!this.host.live) return 'not-started';
    if (this.menus.waiting()) return 'asking-person';
    return this.tracker.inFlight() ? 'working' : 'idle';
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

  protected override commandsFirst(): Promise<void> {
    return this.commands.drain();
  }

  protected override turnOver(): void {
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
