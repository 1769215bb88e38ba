/**
 * Whether an agent's binary is there and runs (`<binary> --version`): the agents' health, checked
 * at start (a warning that names the fix), kept fresh for the status report (agents/health.ts), and
 * the first two lines of `rudder doctor` for each agent. It reports what it finds (binary-check.ts);
 * the fixes are the spec's.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BinaryCheck } from './binary-check.js';
import { type BinarySpec, commandLine, findBinary } from './binary-lookup.js';

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

/** The version of the npm package a file lies in (its nearest package.json), when it has one. */
export function packageVersion(file: string): string | undefined {
  let dir = path.dirname(fs.realpathSync(file));
  for (; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: unknown };
      return typeof pkg.version === 'string' ? pkg.version : undefined;
    } catch {
      // no package.json here: look further up
    }
  }
  return undefined;
}

/**
 * What `<bin> --version` printed first, or why it did not run. `argv` is how the binary runs (a Node script under
 * its Node); `args` null: it has no version flag, so `--help` shows it runs and its package names the version.
 */
export async function readVersion(
  argv: string[],
  env: Record<string, string>,
  timeoutMs: number,
  args: string[] | null = ['--version'],
): Promise<{ version: string } | { why: string }> {
  const [bin, ...pre] = argv;
  try {
    const { stdout } = await exec(bin!, [...pre, ...(args ?? ['--help'])], { env, timeout: timeoutMs });
    // A timeout's SIGTERM that the binary takes as a clean exit leaves nothing printed.
    if (args) return firstLine(stdout) ? { version: firstLine(stdout) } : { why: 'it printed no version' };
    const file = pre.at(-1) ?? bin!;
    return { version: packageVersion(file) ?? `${path.basename(file)} (it prints no version)` };
  } catch (err) {
    const e = err as Error & { stderr?: string; killed?: boolean };
    return { why: e.killed ? `no answer within ${timeoutMs / 1000} s` : firstLine(e.stderr) || firstLine(e.message) };
  }
}

/** Finds the binary and runs `--version`; reports what it finds, never throws for a missing or broken binary. */
export async function checkBinary(spec: BinarySpec, input: BinaryCheckInput, timeoutMs = 20_000): Promise<BinaryCheck> {
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
  let run: { version: string } | { why: string };
  try {
    run = await readVersion(commandLine(spec, bin.path), input.agentEnv, timeoutMs, spec.versionArgs);
  } catch (err) {
    run = { why: (err as Error).message };
  }
  if ('version' in run) return { ...found, ok: true, version: run.version, problem: null, fix: null };
  const flag = spec.versionArgs === null ? '--help' : (spec.versionArgs ?? ['--version']).join(' ');
  return {
    ...found,
    ok: false,
    version: null,
    problem: `${bin.path} (from ${bin.source}) does not run: \`${spec.name} ${flag}\` failed (${run.why}).`,
    fix: spec.fix.broken,
  };
}
