/**
 * One agent child process: spawned in its own process group, stdout split into lines, stderr
 * drained all the time into a ring of the last 50 lines (a full pipe would stall the child), and a
 * kill that records its reason first, then escalates SIGTERM -> SIGKILL on the whole group.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { type ErrorCode, RudderError } from '../../errors.js';
import { withUserUmask } from '../../ops/data-dir.js';
import type { Logger } from '../../ops/logger.js';
import { killMarked, MARK_VAR, newMark } from '../common/orphans.js';
import { LineSplitter } from './protocol/parse.js';

/** Told about every agent process, so one left behind by a crash of Rudder can be stopped at the next start. */
export interface ProcessTracker {
  started(pid: number, label: string): void;
  exited(pid: number): void;
}

export interface SpawnSpec {
  bin: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  logger: Logger;
  /** For log lines: the conversation this process serves. */
  label: string;
  tracker?: ProcessTracker;
  /** Prefix of the environment mark that lets a restart find this process's leftovers. */
  markPrefix?: string;
  /** The code of the error a missing binary raises (another agent than Claude Code names its own). */
  missingBinaryCode?: ErrorCode;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why Rudder stopped it, when Rudder did; undefined for a crash or a normal exit. */
  reason: string | undefined;
  /** A spawn error (ENOENT, EACCES...), when the process never ran. */
  spawnError?: Error;
}

const STDERR_LINES = 50;
const STDERR_LINE_CHARS = 1000;

export class AgentProcess {
  readonly pid: number;
  readonly exited: Promise<ExitInfo>;
  private readonly child: ChildProcess;
  private readonly stderrRing: string[] = [];
  private stderrPartial = '';
  private killReason: string | undefined;
  private exitInfo: ExitInfo | undefined;
  private stdinBroken: Error | undefined;
  private readonly lineListeners: Array<(line: string) => void> = [];
  private readonly tailListeners: Array<(tail: string) => void> = [];
  private readonly log: Logger;

  private constructor(spec: SpawnSpec) {
    this.log = spec.logger;
    if (!fs.existsSync(spec.cwd))
      throw new RudderError('AGENT_SPAWN_FAILED', `The working directory ${spec.cwd} does not exist.`, {
        conversationId: spec.label,
      });
    const mark = newMark(spec.markPrefix);
    // The agent writes the user's project: with the user's umask, not Rudder's private one.
    this.child = withUserUmask(() =>
      spawn(spec.bin, spec.args, {
        cwd: spec.cwd,
        env: { ...spec.env, [MARK_VAR]: mark },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      }),
    );
    this.pid = this.child.pid ?? -1;
    if (this.pid > 0) spec.tracker?.started(this.pid, spec.label);
    const splitter = new LineSplitter();
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const { lines, overflow } = splitter.push(chunk);
      if (overflow) this.log.warn({ conversationId: spec.label, pid: this.pid }, 'agent stdout: over-long line cut');
      for (const line of lines) for (const l of this.lineListeners) l(line);
    });
    this.child.stdout!.on('end', () => {
      const tail = splitter.end();
      if (tail !== undefined) for (const l of this.tailListeners) l(tail);
    });
    this.child.stderr!.on('data', (chunk: Buffer) => this.pushStderr(chunk.toString('utf8')));
    // EPIPE on stdin arrives here; it must not crash the gateway.
    this.child.stdin!.on('error', (err) => {
      this.stdinBroken = err;
    });
    this.exited = new Promise((resolve) => {
      let spawnError: Error | undefined;
      this.child.on('error', (err) => {
        spawnError = err;
        if (this.child.pid === undefined) finish(null, null);
      });
      const finish = (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.exitInfo) return;
        this.exitInfo = { code, signal, reason: this.killReason, ...(spawnError ? { spawnError } : {}) };
        if (this.pid > 0) spec.tracker?.exited(this.pid);
        // Tools run in sessions of their own, outside the group: nothing the agent started outlives it.
        const left = killMarked((m) => m === mark);
        if (left) this.log.info({ pid: this.pid, processes: left }, 'stopped processes the agent left behind');
        resolve(this.exitInfo);
      };
      // 'close' waits for stdout to end, so every line was delivered before the exit is reported.
      this.child.on('close', (code, signal) => finish(code, signal));
    });
  }

  /** Spawns the process; a missing binary is reported at once, other spawn errors through `exited`. */
  static spawn(spec: SpawnSpec): AgentProcess {
    try {
      fs.accessSync(spec.bin, fs.constants.X_OK);
    } catch {
      throw new RudderError(
        spec.missingBinaryCode ?? 'CLAUDE_BINARY_MISSING',
        `${spec.bin} is missing or not executable.`,
        {
          conversationId: spec.label,
        },
      );
    }
    return new AgentProcess(spec);
  }

  onLine(listener: (line: string) => void): void {
    this.lineListeners.push(listener);
  }

  /** Called with an unterminated last line when stdout ends in the middle of a frame. */
  onTruncatedTail(listener: (tail: string) => void): void {
    this.tailListeners.push(listener);
  }

  alive(): boolean {
    return this.exitInfo === undefined && this.pid > 0;
  }

  /** Writes one line to stdin; throws AGENT_STDIN_BROKEN when the pipe is gone. */
  write(line: string): void {
    const stdin = this.child.stdin!;
    if (!this.alive() || this.stdinBroken || stdin.destroyed || stdin.writableEnded) {
      throw new RudderError('AGENT_STDIN_BROKEN', this.stdinBroken?.message, { pid: this.pid }, this.stdinBroken);
    }
    stdin.write(line);
  }

  closeStdin(): void {
    if (!this.child.stdin!.destroyed) this.child.stdin!.end();
  }

  stderrTail(): string[] {
    return this.stderrPartial ? [...this.stderrRing, this.stderrPartial] : [...this.stderrRing];
  }

  /**
   * Records why, closes stdin (an idle CLI then exits by itself, its transcript written), waits up
   * to waitMs for that, then kill(). The first reason wins.
   */
  async end(reason: string, waitMs: number, graceMs = 3000): Promise<ExitInfo> {
    if (this.exitInfo) return this.exitInfo;
    this.killReason ??= reason;
    this.closeStdin();
    let timer: NodeJS.Timeout | undefined;
    const exitedInTime = await Promise.race([
      this.exited.then(() => true),
      new Promise<false>((r) => (timer = setTimeout(() => r(false), waitMs))),
    ]);
    clearTimeout(timer);
    return exitedInTime ? this.exitInfo! : this.kill(reason, graceMs);
  }

  /** Records why, then SIGTERM to the group, then SIGKILL after graceMs. The first reason wins. */
  async kill(reason: string, graceMs = 3000): Promise<ExitInfo> {
    if (this.exitInfo) return this.exitInfo;
    this.killReason ??= reason;
    this.log.info({ pid: this.pid, reason: this.killReason }, 'stopping agent process');
    this.signalGroup('SIGTERM');
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
    const info = await this.exited;
    clearTimeout(timer);
    // The leader is gone; make sure nothing it started in its group lingers.
    this.signalGroup('SIGKILL');
    return info;
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.pid <= 0) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  private pushStderr(text: string): void {
    const parts = (this.stderrPartial + text).split('\n');
    this.stderrPartial = parts.pop()!.slice(0, STDERR_LINE_CHARS);
    for (const p of parts) {
      this.stderrRing.push(p.slice(0, STDERR_LINE_CHARS));
      if (this.stderrRing.length > STDERR_LINES) this.stderrRing.shift();
    }
  }
}
