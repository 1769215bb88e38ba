/**
 * Whether the claude binary is there and runs (`claude --version`). Checked when the gateway
 * starts (a warning that names the fix; agents/health.ts), shown by `rudder status`, and by
 * `rudder doctor`, which also probes the stream-json mode. The fixes are worded once, here.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ERRORS, isRudderError } from '../../errors.js';
import type { ClaudeCheck } from '../common/binary-check.js';
import { type ResolvedBinary, resolveClaudeBinary } from './binary.js';

const exec = promisify(execFile);

export const CLAUDE_FIX = {
  missing:
    'npm install (it brings the pinned @anthropic-ai/claude-code), or set agent.claudeBin / ' +
    'RUDDER_CLAUDE_BIN to a claude binary.',
  broken:
    'Reinstall Claude Code (npm ci brings the pinned @anthropic-ai/claude-code), or point agent.claudeBin / ' +
    'RUDDER_CLAUDE_BIN at a claude that runs.',
} as const;

export type { ClaudeCheck };

export interface ClaudeCheckInput {
  /** agent.claudeBin */
  configured?: string;
  /** Where RUDDER_CLAUDE_BIN and PATH are read. */
  env: NodeJS.ProcessEnv;
  /** The agent's environment, for running the binary. */
  agentEnv: Record<string, string>;
}

const firstLine = (s: string | undefined) => (s ?? '').trim().split('\n')[0]!.trim();

export async function checkClaude(input: ClaudeCheckInput, timeoutMs = 10_000): Promise<ClaudeCheck> {
  const checkedAt = new Date().toISOString();
  let bin: ResolvedBinary;
  try {
    bin = resolveClaudeBinary(input.configured, input.env);
  } catch (err) {
    if (!isRudderError(err, 'CLAUDE_BINARY_MISSING')) throw err;
    const detail = err.message.slice(ERRORS.CLAUDE_BINARY_MISSING.length).trim();
    const problem =
      detail || 'No claude binary: none on PATH, and the pinned @anthropic-ai/claude-code is not installed.';
    return {
      agent: 'Claude',
      ok: false,
      path: input.configured ?? null,
      source: null,
      version: null,
      problem,
      fix: CLAUDE_FIX.missing,
      checkedAt,
    };
  }
  try {
    const { stdout } = await exec(bin.path, ['--version'], { env: input.agentEnv, timeout: timeoutMs });
    return {
      agent: 'Claude',
      ok: true,
      path: bin.path,
      source: bin.source,
      version: firstLine(stdout),
      problem: null,
      fix: null,
      checkedAt,
    };
  } catch (err) {
    const e = err as Error & { stderr?: string; killed?: boolean };
    const why = e.killed ? `no answer within ${timeoutMs / 1000} s` : firstLine(e.stderr) || firstLine(e.message);
    return {
      agent: 'Claude',
      ok: false,
      path: bin.path,
      source: bin.source,
      version: null,
      problem: `${bin.path} (from ${bin.source}) does not run: \`claude --version\` failed (${why}).`,
      fix: CLAUDE_FIX.broken,
      checkedAt,
    };
  }
}
