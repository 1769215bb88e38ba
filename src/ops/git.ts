/**
 * Running git: always execFile with an argument list (never a shell), in a given directory, with
 * the variables that would point git somewhere else (GIT_DIR, GIT_WORK_TREE, ...) removed.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { RudderError } from '../errors.js';

const TIMEOUT_MS = 60_000;
const MAX_BUFFER = 16 * 1024 * 1024;

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** Rudder's own environment, minus what would make git act on another repository. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^GIT_(DIR|WORK_TREE|INDEX_FILE|COMMON_DIR|OBJECT_DIRECTORY|NAMESPACE|CEILING_DIRECTORIES)$/.test(k))
      env[k] = v;
  // Never wait for a password or an editor: nothing here talks to a remote or asks.
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_EDITOR = 'true';
  return env;
}

/** Node reports a missing cwd as a missing program: tell them apart first. */
function checkCwd(cwd: string): void {
  if (!fs.existsSync(cwd)) throw new RudderError('WORKTREE_FAILED', `${cwd} does not exist.`, { cwd });
}

function missing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ENOENT' && (err as { path?: string }).path === 'git';
}

/** Runs git and resolves with its output; ok is false on a non-zero exit. Rejects only when git cannot run. */
export function git(args: string[], cwd: string): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    checkCwd(cwd);
    execFile(
      'git',
      args,
      { cwd, env: gitEnv(), timeout: TIMEOUT_MS, maxBuffer: MAX_BUFFER, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err && missing(err)) return reject(new RudderError('GIT_MISSING', undefined, {}, err));
        if (err && typeof (err as { code?: unknown }).code !== 'number')
          return reject(new RudderError('WORKTREE_FAILED', `git ${args[0]}: ${err.message}`, { cwd }, err));
        resolve({ ok: !err, stdout, stderr });
      },
    );
  });
}

/** The same, blocking: for the few calls made while an agent launch is being built (which is synchronous). */
export function gitSync(args: string[], cwd: string): GitResult {
  checkCwd(cwd);
  try {
    const stdout = execFileSync('git', args, {
      cwd,
      env: gitEnv(),
      timeout: TIMEOUT_MS,
      maxBuffer: MAX_BUFFER,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { ok: true, stdout, stderr: '' };
  } catch (err) {
    if (missing(err)) throw new RudderError('GIT_MISSING', undefined, {}, err);
    const e = err as { status?: number | null; stdout?: string; stderr?: string; message: string };
    if (typeof e.status !== 'number')
      throw new RudderError('WORKTREE_FAILED', `git ${args[0]}: ${e.message}`, { cwd }, err);
    return { ok: false, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The first line of git's complaint, for an error message. */
export function gitComplaint(r: GitResult): string {
  return (r.stderr || r.stdout).trim().split('\n')[0] ?? 'git failed';
}

/** The top of the working tree that holds dir, or undefined when dir is not inside a git repository. */
export function repoTopSync(dir: string): string | undefined {
  const r = gitSync(['rev-parse', '--show-toplevel'], dir);
  return r.ok ? r.stdout.trim() : undefined;
}
