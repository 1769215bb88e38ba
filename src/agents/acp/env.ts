/**
 * An ACP agent's environment: the allow-list every agent gets (agents/claude/env.ts: a base set,
 * proxies, agent.passEnv, then agent.env), plus the variables the preset's agent reads for its login
 * and endpoint, plus the preset's quirks (IS_SANDBOX as root for Claude's adapter). ANTHROPIC_* and
 * CLAUDE_* reach only Claude's adapter unless named in passEnv or set in agent.acp.env: a Claude key
 * is no business of another agent's shell. agent.acp.env is set last.
 */
import { buildAgentEnv, DEFAULT_PASS_VARS } from '../claude/env.js';
import type { AcpPreset } from './presets.js';

const CLAUDE_FAMILY = /^(ANTHROPIC_|CLAUDE_)|^CLAUDECODE$/;

export interface AcpEnvOptions {
  preset?: AcpPreset;
  inherited?: NodeJS.ProcessEnv;
  /** agent.passEnv. */
  passVars?: string[];
  /** agent.env, then agent.acp.env (the later wins). */
  extra?: Record<string, string>;
  /** Whether Rudder runs as root (the default asks the process). */
  root?: boolean;
}

export function buildAcpEnv(opts: AcpEnvOptions = {}): Record<string, string> {
  const named = opts.passVars ?? DEFAULT_PASS_VARS;
  const preset = opts.preset;
  const quirks = preset?.env({ root: opts.root ?? process.getuid?.() === 0 }) ?? {};
  const env = buildAgentEnv({
    inherited: opts.inherited,
    passVars: [...new Set([...named, ...(preset?.passVars ?? [])])],
    extra: { ...quirks, ...opts.extra },
  });
  if (!preset?.claudeVars)
    for (const key of Object.keys(env))
      if (CLAUDE_FAMILY.test(key) && !named.includes(key) && opts.extra?.[key] === undefined) delete env[key];
  return env;
}
