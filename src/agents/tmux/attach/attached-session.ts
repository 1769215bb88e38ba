/**
 * A conversation attached to a Claude Code TUI a person runs in their own tmux pane: the live pane,
 * never restarted. It is driven as any TUI session is (tui-session.ts: typed into only when the
 * classifier says the box takes input, delivered when the transcript shows it, menus relayed), as a
 * pane the person types in too: a box holding text Rudder did not type, or a pane in copy mode, makes
 * a message wait (the person is told). What the person types there reaches the conversation from the
 * transcript, as typed in the terminal; a turn they started is followed (and can be stopped: Escape).
 *
 * The pane is borrowed (borrowed-pane.ts): stop, detach, the reaper, a restart and a shutdown only let
 * go of it. It is never reaped for idleness (it is the person's, and their turns are followed while the
 * conversation is attached), and a turn a restart cut off is followed again (reattach).
 */

import type { Logger } from '../../../ops/logger.js';
import { MARKER_OPEN } from '../../../security/wrap.js';
import type { Capabilities, Turn } from '../../session.js';
import type { PaneHostHooks } from '../pane/host.js';
import type { TmuxTurn } from '../tmux-turn.js';
import { TuiSession } from '../tui-session.js';
import type { AttachedLaunch } from './attached-launch.js';
import { BorrowedPane } from './borrowed-pane.js';

export class AttachedTmuxSession extends TuiSession<BorrowedPane> {
  static readonly CAPABILITIES: Capabilities = {
    steer: 'native',
    interrupt: true,
    resume: false,
    clearContext: false,
    setModel: false,
    reattach: true,
  };

  constructor(private readonly launch: AttachedLaunch) {
    const host = (hooks: PaneHostHooks, log: Logger) => new BorrowedPane(launch, log, hooks);
    super(launch, 'claude-attached', AttachedTmuxSession.CAPABILITIES, host);
    // After the caller had its synchronous turn: a turn to follow again (reattach) says where to read from first.
    queueMicrotask(() => void this.follow());
  }

  /** The pane as the person finds it (`work:2.1`). */
  get paneLabel(): string {
    return this.launch.pane.label;
  }

  /** Rudder runs no process for it: the claude in the pane is the person's (never counted, stopped or reaped). */
  pid(): undefined {
    return undefined;
  }

  /** Always active while attached: the reaper never lets go of a person's pane for being quiet. */
  override lastActiveAt(): number {
    return this.stopped ? super.lastActiveAt() : Date.now();
  }

  /** A turn that was running when Rudder stopped, read again from its own prompt (the last one Rudder typed). */
  override reattach(t: { turnId: string; inputIds: string[] }): Turn {
    return this.lock.run(() => {
      const turn = this.tracker.begin(t.inputIds, undefined, t.turnId);
      turn.adoptsPrompt = this.host.lookBackTo((e) => e.kind === 'prompt' && e.text.includes(`<<<${MARKER_OPEN}`));
      // Its prompt is not to be found: it is followed from now on.
      if (!turn.adoptsPrompt) turn.arrive();
      return turn;
    });
  }

  /** Lets go of the pane (it goes on untouched); a turn running here ends as stopped. */
  async stop(reason: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.lock.run(() => this.endAll('AGENT_STOPPED', reason));
    this.host.release();
    this.log.info({ pane: this.paneLabel, reason }, 'let go of the attached pane');
  }

  /** Rudder stops, the pane does not: the running turn goes on there and is followed again at the next start. */
  override detach(reason: string): Promise<void> {
    return this.stop(reason);
  }

  /**
   * Starts following the pane. A turn already under way there (busy, or a menu waiting) is followed from
   * its own prompt (what it asked, its tools so far: a permission prompt names its tool); without one (a
   * startup dialog, before the TUI has a session) from now.
   */
  private async follow(): Promise<void> {
    const look = await this.host.look();
    if (this.stopped) return;
    const underWay = look?.verdict === 'busy' || look?.verdict === 'menu';
    const fromPrompt = underWay && this.host.lookBackTo((e) => e.kind === 'prompt');
    this.host.begin();
    if (underWay && !fromPrompt && !this.tracker.inFlight()) this.lock.run(() => this.adopt());
    this.host.readTranscript();
    if (look) this.onLook(look);
  }

  /** A turn under way in the terminal whose prompt cannot be read (a startup dialog shows). */
  private adopt(): TmuxTurn {
    const turn = this.tracker.begin([]).arrive();
    turn.emit({ type: 'status', message: `⌨️ A turn started in the terminal (pane ${this.paneLabel}) is running.` });
    return turn;
  }
}
