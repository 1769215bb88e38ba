/**
 * Whether an agent's binary is there and runs (`<binary> --version`): the agents' health, checked
 * at start (a warning that names the fix), kept fresh for the status report (agents/health.ts), and
 * the first two lines of `rudder doctor` for each agent. It reports what it finds (binary-check.ts);
 * the fixes are the spec's.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { BinaryCheck } from './binary-check.js';
import { type BinarySpec, findBinary } from './binary-lookup.js';

const exec = promisify(execFile);

export interface BinaryCheckInput {
  /** The setting's value (agent.claudeBin, agent.codex.bin). */
  configured?: string;
  /** Where the variable and PATH are read. */
  env: NodeJS.ProcessEnv;
  /** The agent's environment, for running the binary. */
  agentEnv: Record<string, string>;
}

export const firstLine = (s: string | undefined) => (s ?? '').trim().split('\n')[0]!.trim();

/** What `<bin> --version` printed first, or why it did not run. */
export async function readVersion(
  bin: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ version: string } | { why: string }> {
  try {
    const { stdout } = await exec(bin, ['--version'], { env, timeout: timeoutMs });
    return { version: firstLine(stdout) };
  } catch (err) {
    const e = err as Error & { stderr?: string; killed?: boolean };
    return { why: e.killed ? `no answer within ${timeoutMs / 1000} s` : firstLine(e.stderr) || firstLine(e.message) };
  }
}

/** Finds the binary and runs `--version`; reports what it finds, never throws for a missing or broken binary. */
export async function checkBinary(spec: BinarySpec, input: BinaryCheckInput, timeoutMs = 10_000): Promise<BinaryCheck> {
  const checkedAt = new Date().toISOString();
  const bin = findBinary(spec, input.configured, input.env);
  if (!('path' in bin))
    return {
      agent: spec.agent,
      ok: false,
      path: input.configured ?? null,
      source: null,
      version: null,
      problem: bin.problem ?? spec.notFound,
      fix: spec.fix.missing,
      checkedAt,
    };
  const found = { agent: spec.agent, path: bin.path, source: bin.source, checkedAt };
  const run = await readVersion(bin.path, input.agentEnv, timeoutMs);
  if ('version' in run) return { ...found, ok: true, version: run.version, problem: null, fix: null };
  return {
    ...found,
    ok: false,
    version: null,
    problem: `${bin.path} (from ${bin.source}) does not run: \`${spec.name} --version\` failed (${run.why}).`,
    fix: spec.fix.broken,
  };
}
