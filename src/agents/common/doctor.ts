/**
 * `rudder doctor`'s line, and what an agent's doctor checks are given. Each backend's entry in the
 * agent table (agents/table.ts) names its checks; cli/doctor.ts runs them and prints the lines.
 */
import type { AgentConfig } from '../../config/schema.js';
import type { BinaryCheck } from './binary-check.js';
import type { BinarySpec } from './binary-lookup.js';

/** One line of `rudder doctor`'s report. */
export interface Check {
  name: string;
  ok: boolean;
  required: boolean;
  detail: string;
  fix?: string;
}

export const passed = (name: string, detail: string, required = true): Check => ({ name, ok: true, required, detail });

export const failed = (name: string, detail: string, fix?: string, required = true): Check => ({
  name,
  ok: false,
  required,
  detail,
  ...(fix === undefined ? {} : { fix }),
});

/** What an agent's doctor checks are given. */
export interface DoctorInput {
  /** agent.* of the config; undefined when the config did not load (the defaults are checked). */
  agent: AgentConfig | undefined;
  /** The environment doctor runs in: PATH, the RUDDER_*_BIN variables, the base of the agent's. */
  env: NodeJS.ProcessEnv;
  /** How long a real model request waits for an answer (--timeout). */
  answerTimeoutMs: number;
  /** Progress while a check waits (stderr). */
  say(line: string): void;
}

export type DoctorChecks = (input: DoctorInput) => Promise<Check[]>;

/**
 * The binary's two lines from its health check: where it was found, and its version (against the
 * pinned one, when the spec names one). `runs` is false when the agent's further checks cannot run.
 */
export function binaryLines(spec: BinarySpec, c: BinaryCheck): { checks: Check[]; runs: boolean } {
  const binary = `${spec.name} binary`;
  const version = `${spec.name} version`;
  if (!c.source) return { checks: [failed(binary, c.problem!, c.fix!)], runs: false };
  const found = passed(binary, `${c.path} (from ${c.source})`);
  if (!c.ok) return { checks: [found, failed(version, c.problem!, c.fix!)], runs: false };
  const pinned = !spec.pinned || c.version!.includes(spec.pinned);
  const detail = pinned ? c.version! : `${c.version} (Rudder is built and tested against ${spec.pinned})`;
  return { checks: [found, passed(version, detail)], runs: true };
}
