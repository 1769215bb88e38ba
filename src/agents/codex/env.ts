/**
 * The app-server's environment: the same allow-list as Claude Code's (agents/claude/env.ts), plus
 * the two variables Codex authenticates with, and CODEX_HOME, where Codex keeps its login, its
 * config and every thread: agent.env's when set, else the user's own (an existing `codex login`
 * then works), else Codex's default ~/.codex.
 */
import { type AgentEnvOptions, buildAgentEnv, DEFAULT_PASS_VARS } from '../claude/env.js';

/** Codex reads an API key from either (CODEX_API_KEY for `codex exec`-style use, OPENAI_API_KEY otherwise). */
export const CODEX_PASS_VARS = ['OPENAI_API_KEY', 'CODEX_API_KEY'];

export function buildCodexEnv(opts: AgentEnvOptions = {}): Record<string, string> {
  const passVars = [...new Set([...(opts.passVars ?? DEFAULT_PASS_VARS), ...CODEX_PASS_VARS])];
  const env = buildAgentEnv({ ...opts, passVars });
  const inherited = (opts.inherited ?? process.env).CODEX_HOME;
  if (opts.extra?.CODEX_HOME === undefined && inherited) env.CODEX_HOME = inherited;
  return env;
}
