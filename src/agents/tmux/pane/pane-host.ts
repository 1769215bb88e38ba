/**
 * The pane's life: spawned on demand (a fresh --session-id, or --resume when the session's
 * transcript exists), polled while it lives (fast while work is in flight, slowly when idle),
 * its transcript tailed, its death noticed (`#{pane_dead}`: a killed pane can look idle), and
 * its tmux session killed by exact name. All typing goes through one chain, so keys from two
 * callers never interleave.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import { alive } from '../../../ops/proc.js';
import { killMarked } from '../../common/orphans.js';
import { DEFAULT_KILL_GRACE_MS } from '../../common/session-base.js';
import { paneName, type TmuxLaunch } from '../tmux-launch.js';
import {
  claudeConfigDir,
  fileSize,
  TranscriptTail,
  transcriptHasConversation,
  transcriptPath,
} from '../transcript/transcript.js';
import type { PaneHostHooks, TuiHost } from './host.js';
import { type Pane, sleep } from './pane.js';
import { bootPane, screenExcerpt, spawnPane, stderrFileOf, stderrTail } from './pane-process.js';
import { PollLoop } from './poll-loop.js';
import { howItExited, Tmux } from './tmux.js';

export class PaneHost implements TuiHost {
  readonly name: string;
  readonly tmux: Tmux;
  readonly configDir: string;
  /** Rudder's own pane: nobody else types in it. */
  readonly shared = false;
  pane: Pane | undefined;
  pid: number | undefined;
  live = false;
  dead = false;
  private lastRescan = 0;
  /** The environment mark of the current pane's program (see agents/common/orphans.ts). */
  mark: string | undefined;
  sid: string | undefined;
  model: string | undefined;
  private sidPersisted: boolean;
  private spawning: Promise<void> | undefined;
  private tail: TranscriptTail | undefined;
  private readonly poller = new PollLoop(
    () => this.tick(),
    () => this.hooks.busy(),
  );
  private ticking = false;
  private closed = false;
  private chain: Promise<unknown> = Promise.resolve();
  /** The kill of a dead pane's tmux session, still in progress. */
  private reaping: Promise<void> | undefined;
  /** Why the last start began a new session instead of resuming the saved one. */
  private newSessionNote: { message: string; notify: boolean } | undefined;

  constructor(
    private readonly launch: TmuxLaunch,
    private readonly log: Logger,
    private readonly hooks: PaneHostHooks,
  ) {
    this.name = paneName(launch.conversationId);
    this.tmux = new Tmux({ name: launch.tmux.socket });
    this.configDir = claudeConfigDir(launch.env);
    this.sid = launch.sessionId;
    this.sidPersisted = !!launch.sessionId;
    this.model = launch.model;
  }

  starting(): boolean {
    return this.spawning !== undefined;
  }

  /** The pane stayed busy through the interrupt: its process is stopped, and the next turn resumes the session. */
  async lastResort(reason: string): Promise<boolean> {
    await this.kill(reason);
    return true;
  }

  /** Runs fn while holding the pane: one typist at a time. */
  withPane<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** A live pane at an idle input box; spawns (or respawns with --resume) when there is none. */
  ensureLive(context: Record<string, unknown>): Promise<void> {
    if (this.live) return Promise.resolve();
    if (this.closed) return Promise.reject(new RudderError('AGENT_STOPPED', undefined, context));
    this.spawning ??= this.spawn(context).finally(() => (this.spawning = undefined));
    return this.spawning;
  }

  private async spawn(context: Record<string, unknown>): Promise<void> {
    await this.reaping;
    const resume = this.resumable();
    try {
      await this.startPane(context, resume);
    } catch (err) {
      if (!resume || this.closed || (err as RudderError).code !== 'AGENT_SESSION_NOT_FOUND') throw err;
      // Nothing to resume: what this start was for runs in a new session instead (once).
      this.newSessionInstead(resume, (err as RudderError).message, !this.nothingIn(resume));
      await this.startPane(context, undefined);
    }
  }

  /** The session id to --resume, when its transcript holds a conversation; otherwise a new session starts. */
  private resumable(): string | undefined {
    if (!this.sid) return undefined;
    const file = transcriptPath(this.configDir, this.launch.cwd, this.sid);
    if (!fs.existsSync(file))
      this.log.warn({ sessionId: this.sid }, 'the saved session has no transcript here; starting a new session');
    else if (!transcriptHasConversation(file))
      this.newSessionInstead(
        this.sid,
        'its transcript holds no conversation (the agent was stopped before it wrote any)',
        false,
      );
    else return this.sid;
    return undefined;
  }

  private nothingIn(sessionId: string): boolean {
    return !transcriptHasConversation(transcriptPath(this.configDir, this.launch.cwd, sessionId));
  }

  /**
   * Records why a saved session is not resumed; the turn that starts the pane tells the person (see
   * takeNewSessionNote).
   */
  private newSessionInstead(sessionId: string, why: string, contextLost: boolean): void {
    this.log.warn({ sessionId, why, contextLost }, 'the saved session cannot be resumed; starting a new session');
    const lost = contextLost ? ' The agent does not remember the earlier conversation.' : '';
    this.newSessionNote = {
      notify: contextLost,
      message:
        `The saved session ${sessionId.slice(0, 8)} could not be resumed: ${why}. A new session was ` +
        `started and the message runs there.${lost}`,
    };
    this.sid = undefined;
  }

  /** Why the last start began a new session instead of resuming, once. */
  takeNewSessionNote(): { message: string; notify: boolean } | undefined {
    const note = this.newSessionNote;
    this.newSessionNote = undefined;
    return note;
  }

  private async startPane(context: Record<string, unknown>, resume: string | undefined): Promise<void> {
    if (!resume) (this.sid = randomUUID()), (this.sidPersisted = false);
    const { pane, pid, mark } = await spawnPane({
      tmux: this.tmux,
      name: this.name,
      launch: this.launch,
      model: this.model,
      resume,
      newSessionId: resume ? undefined : this.sid,
    });
    Object.assign(this, { pane, pid, mark, live: true, dead: false });
    if (this.closed) {
      // Stopped while the pane was being created: it must not outlive the session.
      await this.kill('stopped while starting');
      throw new RudderError('AGENT_STOPPED', undefined, context);
    }
    this.launch.tracker?.started(pid, `tmux ${this.name}`);
    this.log.info({ pid, resume: resume ?? null, sessionId: this.sid }, 'agent pane started');
    const file = transcriptPath(this.configDir, this.launch.cwd, this.sid!);
    this.tail?.close(); // the previous process's reader, on a respawn
    this.tail = new TranscriptTail(file, resume ? fileSize(file) : 0);
    const diagnosis = {
      env: this.launch.env,
      nothingToResume: () => !transcriptHasConversation(file),
      stderrFile: stderrFileOf(this.launch),
    };
    try {
      await bootPane(
        pane,
        {
          apiKey: this.launch.env.ANTHROPIC_API_KEY,
          bypass: this.launch.permissionMode === 'bypassPermissions',
          addDirs: [this.launch.tmux.messageDir],
          home: this.launch.env.HOME,
        },
        this.log,
        { resuming: !!resume, context: { ...context, pid }, diagnosis },
      );
    } catch (err) {
      await this.kill('the pane did not start');
      throw err;
    }
    this.startPolling();
  }

  /** Persists the session id once its transcript exists (resuming an id without one would fail). */
  persistSessionId(force = false): void {
    if (!this.sid || (this.sidPersisted && !force)) return;
    try {
      this.launch.onSessionId?.(this.sid);
      this.sidPersisted = true;
    } catch (err) {
      this.log.error({ err }, 'persisting the session id failed');
    }
  }

  /** The TUI moved to another session (/clear): follow its transcript from the start. */
  switchSession(next: string): void {
    this.sid = next;
    this.tail?.switchTo(transcriptPath(this.configDir, this.launch.cwd, next), 0);
    this.persistSessionId(true);
  }

  forgetSession(): void {
    this.sid = undefined;
    this.sidPersisted = false;
  }

  readTranscript(): void {
    const tail = this.tail;
    if (!tail || !this.sid) return;
    // The derived path can miss (long cwd): look again until the file shows up, at most once a second.
    if (!fs.existsSync(tail.path()) && Date.now() - this.lastRescan >= 1000) {
      this.lastRescan = Date.now();
      const found = transcriptPath(this.configDir, this.launch.cwd, this.sid);
      if (found !== tail.path() && fs.existsSync(found)) tail.switchTo(found, 0);
    }
    const entries = tail.read();
    if (entries.length) this.hooks.entries(entries);
  }

  startPolling(): void {
    if (!this.live || this.closed) return;
    this.poller.start();
  }

  stopPolling(): void {
    this.poller.stop();
  }

  private async tick(): Promise<void> {
    if (this.ticking || !this.live || !this.pane) return;
    this.ticking = true;
    try {
      this.readTranscript();
      const busy = this.hooks.busy();
      const look = busy ? await this.pane.look() : undefined;
      let info = look?.info ?? (await this.tmux.paneInfo(this.name));
      // tmux can mark a pane dead (its pty closed) a moment before it has reaped the exit status.
      for (let i = 0; i < 5 && info.dead && info.deadStatus === undefined && info.deadSignal === undefined; i++)
        info = await sleep(100).then(() => this.tmux.paneInfo(this.name));
      if (info.dead) {
        const text = look?.text ?? (await this.tmux.capturePane(this.name).catch(() => ''));
        const how = howItExited(info);
        this.readTranscript();
        const stderr = stderrTail(stderrFileOf(this.launch));
        return this.onDeath(
          `the agent's terminal program exited (${how}); ${stderr ? `it printed: ${stderr}; ` : ''}last ` +
            `screen: ${screenExcerpt(text)}`,
          text,
        );
      }
      if (look) this.hooks.looked(look);
    } catch (err) {
      // list-panes fails once the tmux session is gone: that is a death too.
      if (this.live && !(await this.tmux.hasSession(this.name).catch(() => true)))
        this.onDeath('the tmux session of the agent is gone', '');
      else this.log.debug({ err: (err as Error).message }, 'pane poll failed; trying again');
    } finally {
      this.ticking = false;
    }
  }

  private onDeath(detail: string, screen: string): void {
    if (!this.live) return;
    this.live = false;
    this.dead = true;
    this.stopPolling();
    this.log.warn({ pid: this.pid, detail }, 'agent pane died; the next message respawns it with --resume');
    if (this.pid !== undefined) this.launch.tracker?.exited(this.pid);
    this.hooks.died(detail, screen);
    // Its last screen is in the log: nothing is left behind. A respawn waits for this first.
    this.reaping = this.tmux.killSession(this.name).then(
      () => void this.killLeftovers(),
      () => void this.killLeftovers(),
    );
  }

  /** Kills the tmux session by its exact name and waits for the program to exit (SIGKILL after the grace). */
  async kill(reason: string, forGood = false): Promise<void> {
    if (forGood) this.closed = true;
    this.stopPolling();
    const pid = this.pid;
    const wasLive = this.live;
    this.live = false;
    this.log.info({ pid, reason }, 'killing the agent pane');
    await this.tmux
      .killSession(this.name)
      .catch((err: Error) => this.log.warn({ err: err.message }, 'tmux kill-session failed'));
    if (pid !== undefined && wasLive) {
      const end = Date.now() + (this.launch.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
      while (alive(pid) && Date.now() < end) await sleep(50);
      if (alive(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
      this.launch.tracker?.exited(pid);
    }
    this.killLeftovers();
    if (forGood) this.tail?.close();
  }

  /** Tools the TUI started run in sessions of their own: kill what carries this pane's mark. */
  private killLeftovers(): void {
    const mark = this.mark;
    if (!mark) return;
    const n = killMarked((m) => m === mark);
    if (n) this.log.info({ processes: n }, 'stopped processes the agent left behind');
  }
}
