/**
 * The agent's environment, built on purpose: inherited CLAUDE_* and ANTHROPIC_* variables pass only
 * when allowed (by default the two auth ones), so variables such as CLAUDECODE (set when Rudder
 * itself runs inside a Claude Code session) never leak into the child. Configured variables win.
 */

export const DEFAULT_PASS_VARS = ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'];

const AGENT_PREFIX = /^(CLAUDE|ANTHROPIC)/i;

/** Rudder's own settings are not the agent's business. */
const RUDDER_PREFIX = /^RUDDER_/;

export interface AgentEnvOptions {
  inherited?: NodeJS.ProcessEnv;
  /** Inherited CLAUDE_* and ANTHROPIC_* variables allowed through. */
  passVars?: string[];
  /** Variables from config, set last. */
  extra?: Record<string, string>;
}

export function buildAgentEnv(opts: AgentEnvOptions = {}): Record<string, string> {
  const inherited = opts.inherited ?? process.env;
  const pass = new Set(opts.passVars ?? DEFAULT_PASS_VARS);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(inherited)) {
    if (value === undefined) continue;
    if (RUDDER_PREFIX.test(key)) continue;
    if (AGENT_PREFIX.test(key) && !pass.has(key)) continue;
    env[key] = value;
  }
  // A gateway-managed CLI must not replace itself under a running session.
  env.DISABLE_AUTOUPDATER = '1';
  for (const [key, value] of Object.entries(opts.extra ?? {})) env[key] = value;
  return env;
}
