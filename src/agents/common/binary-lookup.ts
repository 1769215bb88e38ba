/**
 * Finding an agent's binary, the same way for every agent: its config setting (a path, or a name on
 * PATH), then its variable, then its name on PATH, then the binary of the pinned npm package. A
 * setting or variable that names something that does not run is an error naming it: no fallback, so a
 * typo never silently runs another binary. How the file found is run (a Node script under a Node
 * recent enough for it) and how its version is read are the spec's too.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { AgentConfig } from '../../config/schema.js';
import { type ErrorCode, RudderError } from '../../errors.js';
import type { BinarySource } from './binary-check.js';

export type { BinarySource };

export interface ResolvedBinary {
  path: string;
  source: BinarySource;
}

/** One agent's binary: where it is looked for, and what a person is told when it is not there or does not run. */
export interface BinarySpec<Name extends string = string> {
  /** Its name on PATH, in messages and in the status report: claude, codex. */
  name: Name;
  /** The agent it runs, as people read it: "Claude", "Codex". */
  agent: string;
  /** The config setting that names it, and its value in agent.*. */
  setting: string;
  configured(agent: AgentConfig | undefined): string | undefined;
  /** The variable that names it when the setting does not (none: only the setting does). */
  envVar?: string;
  /** Looked up on PATH by its name when neither names it; false for a command with no name of its own. */
  onPath?: boolean;
  /** The binary of the pinned npm package, when it is installed. */
  bundled(): string | undefined;
  /** How the file found is run: [file] by default (an ACP adapter's Node script: [a Node for it, script]). */
  argv?(file: string): string[];
  /** What prints its version: `--version` by default; null when it has none (its package's version is read). */
  versionArgs?: string[] | null;
  /** The error a binary not found raises. */
  missingCode: ErrorCode;
  /** What is said when none is found anywhere. */
  notFound: string;
  /** The fix when none is found, and when the one found does not run. */
  fix: { missing: string; broken: string };
  /** The version Rudder is built and tested against, when doctor names another one. */
  pinned?: string;
}

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * A binary inside an installed npm package, when it is there and runs. Each package is resolved from the one
 * before it (a platform package is a dependency of its main one), the first from Rudder's own.
 */
export function packagedBinary(packages: string[], file: string[]): string | undefined {
  try {
    let from = import.meta.url;
    for (const pkg of packages) from = createRequire(from).resolve(`${pkg}/package.json`);
    const bin = path.join(path.dirname(from), ...file);
    return isExecutable(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/** The first executable of that name on PATH. */
export function onPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The binary, or why there is none: the setting or variable naming what does not run (undefined: none anywhere). */
export function findBinary(
  spec: BinarySpec,
  configured: string | undefined,
  env: NodeJS.ProcessEnv,
): ResolvedBinary | { problem: string | undefined; setting?: string } {
  const named = (setting: string, value: string) => ({
    problem: value.includes('/')
      ? `${setting} is set to ${value}, which is not an executable file.`
      : `${setting} is set to ${value}, which is neither an executable file nor a command on PATH.`,
    setting,
  });
  // A path, or a command's name looked up on PATH.
  const located = (value: string) =>
    value.includes('/') ? (isExecutable(value) ? value : undefined) : onPath(value, env.PATH);
  if (configured) {
    const file = located(configured);
    return file ? { path: file, source: 'config' } : named(spec.setting, configured);
  }
  const fromEnv = spec.envVar ? env[spec.envVar] : undefined;
  if (fromEnv) {
    const file = located(fromEnv);
    return file ? { path: file, source: 'env' } : named(spec.envVar!, fromEnv);
  }
  const found = spec.onPath === false ? undefined : onPath(spec.name, env.PATH);
  if (found) return { path: found, source: 'path' };
  const bundled = spec.bundled();
  if (bundled) return { path: bundled, source: 'bundled' };
  return { problem: undefined };
}

/** The binary; throws the spec's missingCode (naming the setting or variable at fault) when there is none. */
export function resolveBinary(
  spec: BinarySpec,
  configured?: string,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedBinary {
  const found = findBinary(spec, configured, env);
  if ('path' in found) return found;
  throw new RudderError(spec.missingCode, found.problem, found.setting ? { setting: found.setting } : {});
}

/** What to spawn for a binary found: the spec's way of running it (argv), else the file itself. */
export function commandLine(spec: BinarySpec, file: string): string[] {
  return spec.argv ? spec.argv(file) : [file];
}
