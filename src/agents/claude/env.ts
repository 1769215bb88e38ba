/**
 * The agent's environment, an allow-list: whoever controls a conversation controls the agent's
 * shell, so nothing from Rudder's own environment reaches it unless named. In order:
 * 1. a small base set the CLI and ordinary tools need (BASE_VARS, locale LC_*, proxies, CA files);
 * 2. the inherited variables named in agent.passEnv (by default the two auth variables);
 * 3. agent.env, set last.
 * Everything else (GITHUB_TOKEN, OPENAI_API_KEY, cloud credentials, CLAUDECODE, RUDDER_*) stays out.
 */

export const DEFAULT_PASS_VARS = ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'];

/** Inherited as they are: where things are, who the user is, how text and time are shown. */
export const BASE_VARS = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'COLORTERM',
  'TZ',
  'TMPDIR',
];

/** How the CLI reaches the API on networks that need it: proxies and extra CA certificates. */
export const NETWORK_VARS = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
];

const LOCALE = /^LC_[A-Z]+$/;

/** Rudder's own settings (RUDDER_TOKEN among them) are not the agent's business, even when named. */
const RUDDER_PREFIX = /^RUDDER_/;

export interface AgentEnvOptions {
  inherited?: NodeJS.ProcessEnv;
  /** Inherited variables allowed through beyond the base set (agent.passEnv). */
  passVars?: string[];
  /** Variables from config, set last (agent.env). */
  extra?: Record<string, string>;
}

/** Whether an inherited variable passes: the base set, or named in passEnv; never a RUDDER_ one. */
export function passesThrough(key: string, pass: ReadonlySet<string>): boolean {
  if (RUDDER_PREFIX.test(key)) return false;
  return BASE_VARS.includes(key) || NETWORK_VARS.includes(key) || LOCALE.test(key) || pass.has(key);
}

export function buildAgentEnv(opts: AgentEnvOptions = {}): Record<string, string> {
  const inherited = opts.inherited ?? process.env;
  const pass = new Set(opts.passVars ?? DEFAULT_PASS_VARS);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(inherited)) {
    if (value !== undefined && passesThrough(key, pass)) env[key] = value;
  }
  // A gateway-managed CLI must not replace itself under a running session.
  env.DISABLE_AUTOUPDATER = '1';
  for (const [key, value] of Object.entries(opts.extra ?? {})) env[key] = value;
  return env;
}
