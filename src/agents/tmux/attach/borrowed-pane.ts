/**
 * A person's pane a conversation is attached to: found by its tmux id on the person's server,
 * looked at and typed into (only as the session allows), its transcript tailed, and checked on every
 * poll to still hold the same claude process. It is never started, killed, sent C-c, resized or
 * detached from: letting go (release) only stops watching it. When its claude exits or the pane
 * closes, the session is told once (died) and the launch learns the attachment is over (onGone).
 */
import { RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import type { PaneHostHooks, TuiHost } from '../pane/host.js';
import { Pane, type PaneLook } from '../pane/pane.js';
import { PollLoop } from '../pane/poll-loop.js';
import { Tmux } from '../pane/tmux.js';
import { fileSize, lastEntryOffset, TranscriptTail, transcriptPath } from '../transcript/transcript.js';
import type { TranscriptEntry } from '../transcript/transcript-entries.js';
import type { AttachedLaunch } from './attached-launch.js';
import { sameProcess, sessionFile } from './processes.js';

export class BorrowedPane implements TuiHost {
  readonly name: string;
  readonly pane: Pane;
  readonly pid: number;
  readonly shared = true;
  live = true;
  dead = false;
  sid: string | undefined;
  private persisted: string | undefined;
  private tail: TranscriptTail | undefined;
  /** Where the transcript is read from at the start (undefined: its end). */
  private from: number | undefined;
  private readonly poller = new PollLoop(
    () => this.tick(),
    () => this.hooks.busy(),
  );
  private ticking = false;
  private released = false;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly launch: AttachedLaunch,
    private readonly log: Logger,
    private readonly hooks: PaneHostHooks,
  ) {
    const p = launch.pane;
    this.name = p.label;
    this.pane = new Pane(new Tmux({ path: p.socket }), p.paneId);
    this.pid = p.pid;
    this.sid = p.sessionId;
    this.persisted = p.sessionId;
  }

  withPane<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Never started by Rudder: it is there, or the attachment is over. */
  ensureLive(context: Record<string, unknown>): Promise<void> {
    if (this.live && !this.released) return Promise.resolve();
    return Promise.reject(
      new RudderError('AGENT_CRASHED', `The claude in pane ${this.name} is gone: the conversation let go of it.`, {
        ...context,
      }),
    );
  }

  takeNewSessionNote(): undefined {
    return undefined;
  }

  /** A person's pane is never killed: the turn goes on, and the person is told. */
  lastResort(): Promise<boolean> {
    return Promise.resolve(false);
  }

  /**
   * The transcript is read from the last entry matching (a turn's own prompt) instead of its end; false
   * when there is none, or a place to start was chosen already. Before begin.
   */
  lookBackTo(pred: (e: TranscriptEntry) => boolean): boolean {
    if (!this.sid || this.from !== undefined) return false;
    this.from = lastEntryOffset(this.transcript(this.sid), pred);
    return this.from !== undefined;
  }

  /** Starts following: the transcript from its end (or where lookBackTo said), and polling. */
  begin(): void {
    if (this.sid) {
      const file = this.transcript(this.sid);
      this.tail = new TranscriptTail(file, this.from ?? fileSize(file));
    }
    this.startPolling();
  }

  look(): Promise<PaneLook | undefined> {
    return this.pane.look().catch(() => undefined);
  }

  persistSessionId(force = false): void {
    if (!this.sid || (this.persisted === this.sid && !force)) return;
    try {
      this.launch.onSessionId?.(this.sid);
      this.persisted = this.sid;
    } catch (err) {
      this.log.error({ err }, 'persisting the session id failed');
    }
  }

  readTranscript(): void {
    this.followSession();
    const entries = this.tail?.read() ?? [];
    if (entries.length) this.hooks.entries(entries);
  }

  startPolling(): void {
    if (!this.live || this.released) return;
    this.poller.start();
  }

  /** Lets go: stops watching. The pane and its claude are the person's and go on untouched. */
  release(): void {
    this.released = true;
    this.poller.stop();
    this.tail?.close();
  }

  private transcript(sid: string): string {
    return transcriptPath(this.launch.pane.configDir, this.launch.pane.cwd, sid);
  }

  /** The TUI moved to another session (its /clear, or its first one after a startup dialog): follow it. */
  private followSession(): void {
    const now = sessionFile(this.launch.pane.configDir, this.pid, this.launch.pane.procStart)?.id;
    if (!now || now === this.sid) return;
    this.log.info({ from: this.sid ?? null, to: now }, 'the pane moved to another session: following it');
    this.sid = now;
    if (this.tail) this.tail.switchTo(this.transcript(now), 0);
    else this.tail = new TranscriptTail(this.transcript(now), 0);
    this.persistSessionId(true);
  }

  private async tick(): Promise<void> {
    if (this.ticking || !this.live || this.released) return;
    this.ticking = true;
    try {
      this.readTranscript();
      const gone = await this.goneWhy();
      if (gone) return this.onGone(gone);
      if (this.hooks.busy()) this.hooks.looked(await this.pane.look());
    } catch (err) {
      this.log.debug({ err: (err as Error).message }, 'pane poll failed; trying again');
    } finally {
      this.ticking = false;
    }
  }

  /** Why the pane no longer holds the claude the conversation attached to, if it does not. */
  private async goneWhy(): Promise<string | undefined> {
    if (!sameProcess(this.pid, this.launch.pane.procStart)) return `the claude in pane ${this.name} exited`;
    if (!(await this.pane.tmux.hasPane(this.pane.name))) return `pane ${this.name} was closed`;
    return undefined;
  }

  private onGone(why: string): void {
    if (!this.live) return;
    this.live = false;
    this.dead = true;
    this.readTranscript();
    this.release();
    this.log.info({ pane: this.name, why }, 'the attached pane is gone: the conversation is no longer attached');
    this.hooks.died(`${why}; the conversation is no longer attached to it.`, '');
    this.launch.onGone?.(why);
  }
}
