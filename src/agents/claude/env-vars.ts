/**
 * The variables of Rudder's environment the agent gets, by family. The Claude Code ones are the
 * names the CLI itself reads for its endpoint, auth, models and cloud provider, found in the
 * pinned 2.1.332 binary (`process.env.X` reads and its own provider list).
 */

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

/** Where Claude Code sends its requests and how it authenticates: passed by default. */
export const CLAUDE_ENDPOINT_VARS = [
  // auth
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'ANTHROPIC_CUSTOM_HEADERS',
  'CLAUDE_CODE_API_KEY_HELPER_TTL_MS',
  'CLAUDE_CODE_CLIENT_CERT',
  'CLAUDE_CODE_CLIENT_KEY',
  'CLAUDE_CODE_CLIENT_KEY_PASSPHRASE',
  // endpoint
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_BETAS',
  'ANTHROPIC_UNIX_SOCKET',
  // models
  'ANTHROPIC_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION',
  'CLAUDE_CODE_SUBAGENT_MODEL',
  // cloud providers: the switches and the settings the CLI's own provider list names
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
  'CLAUDE_CODE_USE_ANTHROPIC_AWS',
  'CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD',
  'CLAUDE_CODE_USE_MANTLE',
  'CLAUDE_CODE_USE_GATEWAY',
  'CLAUDE_CODE_SKIP_BEDROCK_AUTH',
  'CLAUDE_CODE_SKIP_VERTEX_AUTH',
  'CLAUDE_CODE_SKIP_FOUNDRY_AUTH',
  'CLAUDE_CODE_SKIP_MANTLE_AUTH',
  'CLAUDE_CODE_SKIP_ANTHROPIC_AWS_AUTH',
  'CLAUDE_CODE_SKIP_ANTHROPIC_GOOGLE_CLOUD_AUTH',
  'ANTHROPIC_BEDROCK_BASE_URL',
  'ANTHROPIC_BEDROCK_MANTLE_BASE_URL',
  'ANTHROPIC_VERTEX_BASE_URL',
  'ANTHROPIC_VERTEX_PROJECT_ID',
  'CLOUD_ML_REGION',
  'ANTHROPIC_FOUNDRY_API_KEY',
  'ANTHROPIC_FOUNDRY_AUTH_TOKEN',
  'ANTHROPIC_FOUNDRY_BASE_URL',
  'ANTHROPIC_FOUNDRY_RESOURCE',
  'ANTHROPIC_AWS_API_KEY',
  'ANTHROPIC_AWS_BASE_URL',
  'ANTHROPIC_AWS_WORKSPACE_ID',
  'ANTHROPIC_GOOGLE_CLOUD_BASE_URL',
  'ANTHROPIC_GOOGLE_CLOUD_PROJECT',
  'ANTHROPIC_GOOGLE_CLOUD_LOCATION',
  'ANTHROPIC_GOOGLE_CLOUD_WORKSPACE_ID',
];

/** Families of the same: model aliases (ANTHROPIC_DEFAULT_SONNET_MODEL…) and Vertex regions per model. */
export const CLAUDE_ENDPOINT_PATTERNS = [
  /^ANTHROPIC_DEFAULT_[A-Z0-9]+_MODEL(_NAME|_DESCRIPTION|_SUPPORTED_CAPABILITIES)?$/,
  /^ANTHROPIC_CUSTOM_MODEL_OPTION(_NAME|_DESCRIPTION|_SUPPORTED_CAPABILITIES)?$/,
  /^VERTEX_REGION_[A-Z0-9_]+$/,
];

/**
 * A cloud's own credentials pass only while a switch that needs them is on: someone with AWS keys
 * in their shell for other work does not hand them to the agent unless Claude Code runs on Bedrock.
 */
export const CLOUD_CREDENTIALS: ReadonlyArray<{ switches: string[]; vars: RegExp }> = [
  { switches: ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_ANTHROPIC_AWS', 'CLAUDE_CODE_USE_MANTLE'], vars: /^AWS_/ },
  {
    switches: ['CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD'],
    vars: /^(GOOGLE_|GCLOUD_|CLOUDSDK_)/,
  },
  { switches: ['CLAUDE_CODE_USE_FOUNDRY'], vars: /^AZURE_/ },
];

/**
 * What a Claude Code process sets for the commands it runs (found with `env` in its Bash tool):
 * present when Rudder itself runs inside a Claude Code session, and never the agent's to inherit.
 */
export const CLAUDE_SESSION_MARKERS = [
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_EXECPATH',
  'CLAUDE_CODE_SESSION_ID',
  'CLAUDE_CODE_SESSION_ATTENDED',
  'CLAUDE_CODE_CHILD_SESSION',
  'CLAUDE_CODE_CHILD_NOTES_DIR',
  'CLAUDE_CODE_MESSAGING_SOCKET',
  'CLAUDE_CODE_MESSAGING_TOKEN',
  'CLAUDE_CODE_SSE_PORT',
  'CLAUDE_EFFORT',
  'CLAUDE_PID',
  'CLAUDE_PROJECT_DIR',
  'CLAUDE_ENV_FILE',
  'CLAUDE_AGENT_SDK_VERSION',
];

/** The CLI's own reading of a switch: 1, true, yes or on, in any case. */
export function switchOn(value: string | undefined): boolean {
  return ['1', 'true', 'yes', 'on'].includes(
    String(value ?? '')
      .toLowerCase()
      .trim(),
  );
}

export function isClaudeEndpointVar(key: string): boolean {
  return CLAUDE_ENDPOINT_VARS.includes(key) || CLAUDE_ENDPOINT_PATTERNS.some((p) => p.test(key));
}
