/**
 * The agent table: every backend a conversation can run on, one entry each, keyed by its config name
 * (agent.backend, a project's backend). An entry says all Rudder knows of the backend: the binary it
 * runs (how it is found and what fixes it), the environment it runs in, its health (`<binary>
 * --version`, at start and in the status report: health.ts), `rudder doctor`'s checks, what its
 * sessions can do, and how a conversation's session is made. Nothing outside this table tests a
 * backend's name.
 *
 * Adding a backend: its name in config/schema.ts's BACKENDS (the table must then have its entry),
 * its session class (extending common/session-base.ts), and its entry here.
 */
import type { AgentConfig, Config } from '../config/schema.js';
import { CLAUDE_BINARY } from './claude/binary.js';
import { claudeChecks } from './claude/doctor.js';
import { claudeEnv } from './claude/env.js';
import { claudeLaunch } from './claude/launch.js';
import type { SpareProcess } from './claude/spare.js';
import { ClaudeStreamSession } from './claude/stream-session.js';
import { CODEX_BINARY } from './codex/binary.js';
import { CodexSession } from './codex/codex-session.js';
import { checkCodex } from './codex/doctor.js';
import { codexEnv } from './codex/env.js';
import { codexLaunch } from './codex/launch.js';
import type { CodexServers } from './codex/server/servers.js';
import type { BinarySpec } from './common/binary-lookup.js';
import type { DoctorChecks } from './common/doctor.js';
import type { LaunchContext } from './launch.js';
import type { AgentSession, Capabilities } from './session.js';
import { tmuxChecks } from './tmux/doctor.js';
import { tmuxLaunch } from './tmux/tmux-launch.js';
import { ClaudeTmuxSession } from './tmux/tmux-session.js';

export type Backend = Config['agent']['backend'];

/** What a gateway (or a node) keeps for all its conversations, that a backend's sessions share. */
export interface SharedProcesses {
  /** A claude process started ahead for the next new conversation (steering.spareProcess), when on. */
  spare(): SpareProcess | undefined;
  /** Codex's app-servers, one shared by every conversation of the same binary, config and environment. */
  codexServers(): CodexServers;
}

export interface AgentEntry {
  /** Its binary: how it is found (a setting, a variable, PATH, the pinned package), its fixes, its name. */
  binary: BinarySpec;
  /** The environment its processes get (`--version` included), from agent.passEnv and agent.env. */
  env(agent: AgentConfig | undefined, inherited: NodeJS.ProcessEnv): Record<string, string>;
  /**
   * `rudder doctor`: the agent's checks (its binary and version, then its own: auth, one real request),
   * shared by the backends of one agent; then this backend's own (what running it this way needs).
   */
  doctor: { agent: DoctorChecks; backend?: DoctorChecks };
  /** What its sessions can do, known before one exists (a node reports it for its projects). */
  capabilities: Capabilities;
  /** A conversation's session. */
  session(ctx: LaunchContext, shared: SharedProcesses): AgentSession;
}

const codexChecks: DoctorChecks = ({ agent, env }) =>
  checkCodex({
    configured: agent?.codex.bin,
    config: agent?.codex.config,
    env,
    agentEnv: codexEnv(agent, env),
  });

export const AGENT_TABLE = {
  'claude-stream': {
    binary: CLAUDE_BINARY,
    env: claudeEnv,
    doctor: { agent: claudeChecks },
    capabilities: ClaudeStreamSession.CAPABILITIES,
    session: (ctx, shared) => new ClaudeStreamSession(claudeLaunch(ctx, shared.spare())),
  },
  'claude-tmux': {
    binary: CLAUDE_BINARY,
    env: claudeEnv,
    doctor: { agent: claudeChecks, backend: tmuxChecks },
    capabilities: ClaudeTmuxSession.CAPABILITIES,
    session: (ctx, shared) => new ClaudeTmuxSession(tmuxLaunch(ctx, shared.spare())),
  },
  codex: {
    binary: CODEX_BINARY,
    env: codexEnv,
    doctor: { agent: codexChecks },
    capabilities: CodexSession.CAPABILITIES,
    session: (ctx, shared) => new CodexSession(codexLaunch(ctx, shared.codexServers())),
  },
} satisfies Record<Backend, AgentEntry>;

/** The agents' binaries by name: claude, codex. */
export type BinaryName = (typeof AGENT_TABLE)[Backend]['binary']['name'];

/** The backend's entry; undefined for a name the table does not hold (a node's report from a newer Rudder). */
export function entryOf(backend: string): AgentEntry | undefined {
  return Object.hasOwn(AGENT_TABLE, backend) ? AGENT_TABLE[backend as Backend] : undefined;
}

/** The agents' binaries, each once (Claude's two backends run one), in the order the backends name them. */
export function binaries(backends: Iterable<string>): BinarySpec[] {
  const specs = [...backends].flatMap((b) => entryOf(b)?.binary ?? []);
  return [...new Set(specs)];
}
