/**
 * Whether the codex binary is there and runs (`codex --version`), for the gateway's start warning
 * and the status report (agents/health.ts); `rudder doctor` goes further (health.ts: a real
 * app-server handshake, the auth, one request). The fixes are health.ts's.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ERRORS, isRudderError } from '../../errors.js';
import type { BinaryCheck } from '../common/binary-check.js';
import { type ResolvedCodex, resolveCodexBinary } from './binary.js';
import { CODEX_FIX } from './health.js';

const exec = promisify(execFile);

export interface CodexBinaryInput {
  /** agent.codex.bin */
  configured?: string;
  /** Where RUDDER_CODEX_BIN and PATH are read. */
  env: NodeJS.ProcessEnv;
  /** The agent's environment (buildCodexEnv), for running the binary. */
  agentEnv: Record<string, string>;
}

const firstLine = (s: string | undefined) => (s ?? '').trim().split('\n')[0]!.trim();

export async function checkCodexBinary(input: CodexBinaryInput, timeoutMs = 10_000): Promise<BinaryCheck> {
  const checkedAt = new Date().toISOString();
  const result = { agent: 'Codex', checkedAt };
  let bin: ResolvedCodex;
  try {
    bin = resolveCodexBinary(input.configured, input.env);
  } catch (err) {
    if (!isRudderError(err, 'CODEX_BINARY_MISSING')) throw err;
    const detail = err.message.slice(ERRORS.CODEX_BINARY_MISSING.length).trim();
    return {
      ...result,
      ok: false,
      path: input.configured ?? null,
      source: null,
      version: null,
      problem: detail || 'No codex binary: none on PATH, and the pinned @openai/codex is not installed.',
      fix: CODEX_FIX.missing,
    };
  }
  try {
    const { stdout } = await exec(bin.path, ['--version'], { env: input.agentEnv, timeout: timeoutMs });
    return {
      ...result,
      ok: true,
      path: bin.path,
      source: bin.source,
      version: firstLine(stdout),
      problem: null,
      fix: null,
    };
  } catch (err) {
    const e = err as Error & { stderr?: string; killed?: boolean };
    const why = e.killed ? `no answer within ${timeoutMs / 1000} s` : firstLine(e.stderr) || firstLine(e.message);
    return {
      ...result,
      ok: false,
      path: bin.path,
      source: bin.source,
      version: null,
      problem: `${bin.path} (from ${bin.source}) does not run: \`codex --version\` failed (${why}).`,
      fix: CODEX_FIX.broken,
    };
  }
}
