/**
 * Runs the built `rudder` command (dist/cli/main.js) as a child, without blocking this process (the mock API lives
 * here).
 */
import { spawn } from 'node:child_process';
import { CLI } from './gateway-rig.js';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function runCli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const started = Date.now();
    const c = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: opts.env ?? process.env });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d) => (stdout += d));
    c.stderr.on('data', (d) => (stderr += d));
    c.stdin.end(opts.input ?? '');
    // A hang is a failure to report, not a test that never ends.
    const guard = setTimeout(() => c.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    c.on('close', (status) => {
      clearTimeout(guard);
      resolve({ status, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The environment with RUDDER_* and the auth variables removed, plus the given ones. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(RUDDER_|ANTHROPIC_|CLAUDE)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}
