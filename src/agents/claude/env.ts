/**
 * The agent's environment, an allow-list: whoever controls a conversation controls the agent's
 * shell, so nothing from Rudder's own environment reaches it unless named. In order:
 * 1. a small base set the CLI and ordinary tools need (BASE_VARS, locale LC_*, proxies, CA files);
 * 2. what Claude Code reads for its endpoint, auth and models (env-vars.ts), and a cloud's own
 *    credentials while the switch that needs them is on (AWS_* with CLAUDE_CODE_USE_BEDROCK…);
 * 3. the inherited variables named in agent.passEnv;
 * 4. agent.env, set last.
 * Everything else (GITHUB_TOKEN, OPENAI_API_KEY, CLAUDECODE, RUDDER_*) stays out.
 */
import type { AgentConfig } from '../../config/schema.js';
import {
  BASE_VARS,
  CLAUDE_SESSION_MARKERS,
  CLOUD_CREDENTIALS,
  isClaudeEndpointVar,
  NETWORK_VARS,
  switchOn,
} from './env-vars.js';

export { BASE_VARS, NETWORK_VARS } from './env-vars.js';

/** agent.passEnv's default: the Claude Code variables pass without being named. */
export const DEFAULT_PASS_VARS: string[] = [];

const LOCALE = /^LC_[A-Z]+$/;

/** Rudder's own settings (RUDDER_TOKEN among them) are not the agent's business, even when named. */
const RUDDER_PREFIX = /^RUDDER_/;

const CLAUDE_FAMILY = /^(ANTHROPIC_|CLAUDE_)|^CLAUDECODE$/;

export interface AgentEnvOptions {
  inherited?: NodeJS.ProcessEnv;
  /** Inherited variables allowed through beyond the default set (agent.passEnv). */
  passVars?: string[];
  /** Variables from config, set last (agent.env). */
  extra?: Record<string, string>;
}

/** The cloud-credential patterns whose switch is on, in agent.env or in the inherited environment. */
function cloudPatterns(inherited: NodeJS.ProcessEnv, extra: Record<string, string>): RegExp[] {
  return CLOUD_CREDENTIALS.filter((c) => c.switches.some((s) => switchOn(extra[s] ?? inherited[s]))).map((c) => c.vars);
}

/** Whether an inherited variable passes: a default family, or named in passEnv; never a RUDDER_ one. */
export function passesThrough(key: string, pass: ReadonlySet<string>, clouds: readonly RegExp[] = []): boolean {
  if (RUDDER_PREFIX.test(key)) return false;
  if (CLAUDE_SESSION_MARKERS.includes(key)) return pass.has(key);
  return (
    BASE_VARS.includes(key) ||
    NETWORK_VARS.includes(key) ||
    LOCALE.test(key) ||
    isClaudeEndpointVar(key) ||
    clouds.some((p) => p.test(key)) ||
    pass.has(key)
  );
}

export function buildAgentEnv(opts: AgentEnvOptions = {}): Record<string, string> {
  const inherited = opts.inherited ?? process.env;
  const extra = opts.extra ?? {};
  const pass = new Set(opts.passVars ?? DEFAULT_PASS_VARS);
  const clouds = cloudPatterns(inherited, extra);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(inherited)) {
    if (value !== undefined && passesThrough(key, pass, clouds)) env[key] = value;
  }
  // A gateway-managed CLI must not replace itself under a running session.
  env.DISABLE_AUTOUPDATER = '1';
  for (const [key, value] of Object.entries(extra)) env[key] = value;
  return env;
}

/** The environment of every Claude process, from agent.passEnv and agent.env (undefined: the defaults). */
export function claudeEnv(agent: AgentConfig | undefined, inherited: NodeJS.ProcessEnv): Record<string, string> {
  return buildAgentEnv({ inherited, passVars: agent?.passEnv, extra: agent?.env });
}

/**
 * ANTHROPIC_* / CLAUDE_* variables of Rudder's environment the agent does not get (neither passed
 * nor set in agent.env), sorted. The markers a Claude Code session sets for its own commands are
 * left out: they are never meant to pass.
 */
export function unpassedClaudeVars(opts: AgentEnvOptions = {}): string[] {
  const inherited = opts.inherited ?? process.env;
  const got = buildAgentEnv(opts);
  return Object.keys(inherited)
    .filter((k) => CLAUDE_FAMILY.test(k) && inherited[k] !== undefined && !(k in got))
    .filter((k) => !CLAUDE_SESSION_MARKERS.includes(k))
    .sort();
}

/**
 * The one warning line for start-up when Claude Code variables of Rudder's environment do not
 * reach the agent, with the agent.passEnv fix; undefined when there are none. Names only: values
 * (keys, tokens) are never printed.
 */
export function passEnvWarning(opts: AgentEnvOptions = {}): string | undefined {
  const names = unpassedClaudeVars(opts);
  if (!names.length) return undefined;
  const list = names.join(', ');
  const they = names.length === 1 ? `${list} is` : `${list} are`;
  const json = JSON.stringify([...(opts.passVars ?? []), ...names]);
  return (
    `${they} set in Rudder's environment but the agent does not get ${names.length === 1 ? 'it' : 'them'} ` +
    `(fix: add ${names.length === 1 ? 'it' : 'them'} to agent.passEnv in the config, "passEnv": ${json})`
  );
}
