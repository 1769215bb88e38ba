/**
 * Running git (and gh) for a review: execFile with an argument list, never a shell; every GIT_*
 * variable removed but identity and transport; each output bounded (beyond the bound the process
 * is stopped and the output marked truncated); a time limit. Every child carries a mark in its
 * environment, so a timeout or stopAll() also kills what it started (ssh, a remote helper), and
 * the gateway's start-up sweep finds what a crash left.
 *
 * git runs nothing the repository names: no hooks (unless the person turned them on with
 * review.runHooks), no fsmonitor, no ext:: transport, and no filter, merge driver, ssh command,
 * signing program or credential helper from the repository's own config (repo-config.ts).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { killMarked, MARK_VAR, newMark } from '../../agents/common/orphans.js';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import { parseConfigList, repositoryOverrides } from './repo-config.js';

export interface RunOptions {
  cwd: string;
  /** Bound on stdout and on stderr, in bytes. */
  maxBytes?: number;
  timeoutMs?: number;
  /** A read: git takes no optional locks, so it never holds up the agent's own git in that tree. */
  read?: boolean;
  /** Variables added to the child's environment. */
  env?: Record<string, string>;
}

export interface RunResult {
  /** The exit code (a child stopped at the output bound reports -1). */
  code: number;
  stdout: string;
  stderr: string;
  /** stdout reached maxBytes: the process was stopped there and stdout is cut. */
  truncated: boolean;
}

export interface GitRunnerOptions {
  /** The environment children start from (default: Rudder's own). */
  env?: NodeJS.ProcessEnv;
  /** The gateway's mark prefix, so the start-up sweep kills what a crashed run left. */
  markPrefix?: string;
  timeoutMs?: number;
  log?: Logger;
  /** Run the repository's hooks (pre-commit, commit-msg, post-merge, pre-push): the person's review.runHooks. */
  runHooks?: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/** GIT_* variables a child keeps: who commits, and how it reaches a remote. The rest could point git elsewhere. */
const KEEP = new Set([
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_SSH_VARIANT',
  'GIT_ASKPASS',
  'GIT_SSL_CAINFO',
  'GIT_SSL_CAPATH',
  'GIT_PROXY_COMMAND',
]);

/**
 * Options before every git subcommand: paths unquoted (-z outputs carry them raw), no fsmonitor
 * hook (a configured one is a program git would run on every read), no ext:: transport (a remote
 * URL that is a shell command), no pager, no colour.
 */
const GIT_PREFIX = [
  '-c',
  'core.quotepath=off',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'protocol.ext.allow=never',
  '-c',
  'color.ui=never',
  '--no-pager',
];
/** Hooks off: git looks for them under /dev/null, where nothing can be written. */
const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null'];

export function reviewEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (!k.startsWith('GIT_') || KEEP.has(k)) env[k] = v;
  // Never wait for a password or an editor: nobody is at a terminal to answer.
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_EDITOR = 'true';
  env.GIT_PAGER = 'cat';
  return env;
}

interface Live {
  mark: string;
  pid: number | undefined;
  reason?: string;
}

export class GitRunner {
  private readonly live = new Set<Live>();

  constructor(private readonly o: GitRunnerOptions = {}) {}

  /**
   * git with the review's fixed options before the subcommand, and the repository's programs taken out of its
   * config (read just before, so a change the agent made since counts).
   */
  async git(args: string[], opts: RunOptions): Promise<RunResult> {
    const what = `git ${args[0] ?? ''}`.trim();
    const listed = await this.run('git', [...GIT_PREFIX, 'config', '--list', '--show-scope', '-z'], opts, what);
    // Unreadable config: git refuses the command itself for the same reason.
    const env = this.o.env ?? process.env;
    const guard = listed.code === 0 ? repositoryOverrides(parseConfigList(listed.stdout), env) : undefined;
    const hooks = this.o.runHooks ? [] : NO_HOOKS;
    const [sub, ...rest] = args;
    const own = sub === 'push' ? [sub, ...(guard?.push ?? []), ...rest] : args;
    return this.run('git', [...GIT_PREFIX, ...hooks, ...(guard?.config ?? []), ...own], opts, what);
  }

  /** Any program (gh) with the same hygiene; rejects GIT_MISSING for git, ENOENT otherwise, when it cannot start. */
  exec(bin: string, args: string[], opts: RunOptions): Promise<RunResult> {
    return this.run(bin, args, opts, `${bin} ${args[0] ?? ''}`.trim());
  }

  private run(bin: string, args: string[], opts: RunOptions, what: string): Promise<RunResult> {
    if (!fs.existsSync(opts.cwd))
      return Promise.reject(new RudderError('REVIEW_GIT_FAILED', `${opts.cwd} does not exist.`, { cwd: opts.cwd }));
    const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    const timeoutMs = opts.timeoutMs ?? this.o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const live: Live = { mark: newMark(`${this.o.markPrefix ?? 'rudder'}:git`), pid: undefined };
    const env: NodeJS.ProcessEnv = { ...reviewEnv(this.o.env ?? process.env), ...opts.env, [MARK_VAR]: live.mark };
    if (opts.read) env.GIT_OPTIONAL_LOCKS = '0';
    return new Promise((resolve, reject) => {
      const child = execFile(
        bin,
        args,
        { cwd: opts.cwd, env, maxBuffer: maxBytes, encoding: 'buffer', killSignal: 'SIGKILL' },
        (err, out, errOut) => {
          clearTimeout(timer);
          this.live.delete(live);
          const code = (err as { code?: unknown } | null)?.code;
          // Stopped by us: whatever it started (ssh, a remote helper) goes with it.
          if (live.reason || code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') killMarked((m) => m === live.mark);
          const stdout = Buffer.isBuffer(out) ? out.toString('utf8') : String(out ?? '');
          const stderr = Buffer.isBuffer(errOut) ? errOut.toString('utf8') : String(errOut ?? '');
          if (err && code === 'ENOENT') {
            if (bin === 'git') return reject(new RudderError('GIT_MISSING', undefined, {}, err));
            return reject(err);
          }
          if (live.reason) {
            const stopped = live.reason.startsWith('timeout') ? 'REVIEW_GIT_TIMEOUT' : 'REVIEW_GIT_STOPPED';
            return reject(new RudderError(stopped, `${what} (${live.reason}).`, { cwd: opts.cwd }, err));
          }
          if (err && code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
            // Only stdout is ever long; a stderr past the bound is reported as the failure it is.
            if (Buffer.byteLength(stdout) >= maxBytes || !/stderr/.test(err.message))
              return resolve({ code: -1, stdout, stderr, truncated: true });
            return resolve({ code: -1, stdout, stderr: stderr.slice(0, 4000), truncated: false });
          }
          if (err && typeof code !== 'number')
            return reject(new RudderError('REVIEW_GIT_FAILED', `${what}: ${err.message}`, { cwd: opts.cwd }, err));
          resolve({ code: typeof code === 'number' ? code : 0, stdout, stderr, truncated: false });
        },
      );
      live.pid = child.pid;
      this.live.add(live);
      child.stdin?.end();
      const timer = setTimeout(() => this.stop(live, `timeout after ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
      timer.unref?.();
    });
  }

  /** Stops every running child (the gateway's shutdown), the reason recorded first. */
  stopAll(reason: string): number {
    const all = [...this.live];
    for (const l of all) this.stop(l, reason);
    return all.length;
  }

  /** How many children run now. */
  running(): number {
    return this.live.size;
  }

  private stop(l: Live, reason: string): void {
    l.reason ??= reason;
    this.o.log?.warn({ pid: l.pid, reason: l.reason }, 'stopping a git process');
    if (l.pid) {
      try {
        process.kill(l.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    killMarked((m) => m === l.mark);
  }
}

/** The first line of a failed command's complaint, for an error message. */
export function complaint(r: RunResult): string {
  const lines = (r.stderr || r.stdout)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[0] ?? `exit code ${r.code}`;
}

/** Fails with REVIEW_GIT_FAILED (or the given code) unless the command exited 0. */
export function ok(
  r: RunResult,
  what: string,
  code: 'REVIEW_GIT_FAILED' | 'REVIEW_MERGE_FAILED' = 'REVIEW_GIT_FAILED',
) {
  if (r.code !== 0) throw new RudderError(code, `${what}: ${complaint(r)}`);
  return r;
}
