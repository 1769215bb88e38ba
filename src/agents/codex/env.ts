/**
 * The app-server's environment: the same allow-list as Claude Code's (agents/claude/env.ts), less
 * what only Claude Code reads (ANTHROPIC_*, CLAUDE_*: a Claude key is no business of Codex's shell
 * unless named in passEnv or set in agent.env), plus the two variables Codex authenticates with,
 * and CODEX_HOME, where Codex keeps its login, its config and every thread: agent.env's when set,
 * else the user's own (an existing `codex login` then works), else Codex's default ~/.codex.
 */
import type { AgentConfig } from '../../config/schema.js';
import { type AgentEnvOptions, buildAgentEnv, DEFAULT_PASS_VARS } from '../claude/env.js';

/** Codex reads an API key from either (CODEX_API_KEY for `codex exec`-style use, OPENAI_API_KEY otherwise). */
export const CODEX_PASS_VARS = ['OPENAI_API_KEY', 'CODEX_API_KEY'];

const CLAUDE_FAMILY = /^(ANTHROPIC_|CLAUDE_)|^CLAUDECODE$/;

export function buildCodexEnv(opts: AgentEnvOptions = {}): Record<string, string> {
  const named = opts.passVars ?? DEFAULT_PASS_VARS;
  const env = buildAgentEnv({ ...opts, passVars: [...new Set([...named, ...CODEX_PASS_VARS])] });
  for (const key of Object.keys(env))
    if (CLAUDE_FAMILY.test(key) && !named.includes(key) && opts.extra?.[key] === undefined) delete env[key];
  const inherited = (opts.inherited ?? process.env).CODEX_HOME;
  if (opts.extra?.CODEX_HOME === undefined && inherited) env.CODEX_HOME = inherited;
  return env;
}

/** The app-server's environment, from agent.passEnv and agent.env (undefined: the defaults). */
export function codexEnv(agent: AgentConfig | undefined, inherited: NodeJS.ProcessEnv): Record<string, string> {
  return buildCodexEnv({ inherited, passVars: agent?.passEnv, extra: agent?.env });
}
