/**
 * The agent table: every backend a conversation can run on, one entry each, keyed by its config name
 * (agent.backend, a project's backend). An entry says all Rudder knows of the backend: the binary it
 * runs (how it is found and what fixes it), the environment it runs in, its health (`<binary>
 * --version`, at start and in the status report: health.ts), `rudder doctor`'s checks, what its
 * sessions can do, and how a conversation's session is made. Nothing outside this table tests a
 * backend's name.
 *
 * Adding a backend: its name in config/schema.ts's BACKENDS (the table must then have its entry),
 * its session class (extending common/session-base.ts), and its entry here. What its sessions share
 * (a pool of processes) is asked of SharedProcesses by name, made at its first use and stopped with
 * the gateway; the status report lists every binary and every shared process whatever the backend.
 * A session kind no config names (a conversation attached to a person's pane) is an entry here and a
 * name in SESSION_KINDS.
 */
import type { AgentConfig, Config } from '../config/schema.js';
import type { Logger } from '../ops/logger.js';
import { AcpSession, acpCapabilities } from './acp/acp-session.js';
import { acpBinary } from './acp/command.js';
import { acpChecks } from './acp/doctor.js';
import { acpEnv, acpLaunch } from './acp/launch.js';
import { presetOfBackend } from './acp/presets.js';
import { AcpProcesses } from './acp/processes.js';
import { CLAUDE_BINARY } from './claude/binary.js';
import { claudeChecks } from './claude/doctor.js';
import { claudeEnv } from './claude/env.js';
import { claudeLaunch } from './claude/launch.js';
import type { ProcessTracker } from './claude/process.js';
import type { SpareProcess } from './claude/spare.js';
import { ClaudeStreamSession } from './claude/stream-session.js';
import { CODEX_BINARY } from './codex/binary.js';
import { CodexSession } from './codex/codex-session.js';
import { checkCodex } from './codex/doctor.js';
import { codexEnv } from './codex/env.js';
import { codexLaunch } from './codex/launch.js';
import { CodexServers } from './codex/server/servers.js';
import { codexHistory } from './codex/threads.js';
import type { BinarySpec } from './common/binary-lookup.js';
import type { DoctorChecks } from './common/doctor.js';
import type { SharedProcessStatus } from './common/process-status.js';
import type { HistoryContext, SessionHistory } from './history.js';
import type { LaunchContext } from './launch.js';
import type { AgentSession, Capabilities } from './session.js';
import { attachedLaunch } from './tmux/attach/attached-launch.js';
import { AttachedTmuxSession } from './tmux/attach/attached-session.js';
import { tmuxChecks } from './tmux/doctor.js';
import { tmuxLaunch } from './tmux/tmux-launch.js';
import { ClaudeTmuxSession } from './tmux/tmux-session.js';

export type Backend = Config['agent']['backend'];

/** What every pool of shared processes is made from. */
export interface PoolBase {
  logger: Logger;
  tracker: ProcessTracker;
  markPrefix: string;
}

/** Processes a backend's conversations share: stopped with the gateway, listed in the status report. */
export interface SharedPool {
  stopAll(reason: string): Promise<void>;
  status(): SharedProcessStatus[];
}

/** Sessions no config names: a conversation attached to a Claude Code TUI in a person's tmux pane. */
export const SESSION_KINDS = ['claude-attached'] as const;
export type SessionKind = Backend | (typeof SESSION_KINDS)[number];

/** What a gateway (or a node) keeps for all its conversations, that a backend's sessions share. */
export interface SharedProcesses {
  /** A claude process started ahead for the next new conversation (steering.spareProcess), when on. */
  spare(): SpareProcess | undefined;
  /** The pool of that name (Codex's app-servers, the ACP agents), made by `make` at its first use. */
  pool<T extends SharedPool>(name: string, make: (base: PoolBase) => T): T;
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
  /** The agent as people read it, when a setting names it (agent.acp.name); the binary's agent otherwise. */
  label?(agent: AgentConfig): string | undefined;
  /** A conversation's session. */
  session(ctx: LaunchContext, shared: SharedProcesses): AgentSession;
  /**
   * The past sessions the agent lists when asked (Codex's threads), for /sessions and /resume; without it they are
   * Claude Code's, read from its files (projects/sessions.ts).
   */
  history?(ctx: HistoryContext, shared: SharedProcesses): SessionHistory;
}

/** The app-servers Codex's conversations share; a thread listing asks the same ones (a running server answers it). */
const codexServers = (shared: SharedProcesses) => shared.pool('codex', (b) => new CodexServers(b));

const codexChecks: DoctorChecks = ({ agent, env }) =>
  checkCodex({
    configured: agent?.codex.bin,
    config: agent?.codex.config,
    env,
    agentEnv: codexEnv(agent, env),
  });

/**
 * An ACP backend: `acp` runs agent.acp.command, `acp:<preset>` a known agent (agents/acp/presets.ts), its processes
 * shared by the conversations of one directory (the pool `acp`); steering as the preset expects it.
 */
function acpEntry(backend: string): AgentEntry {
  const preset = presetOfBackend(backend);
  return {
    binary: acpBinary(preset),
    env: (agent, inherited) => acpEnv(preset, agent, inherited),
    doctor: { agent: acpChecks(backend) },
    capabilities: acpCapabilities(preset),
    label: (agent) => agent.acp.name,
    session: (ctx, shared) =>
      new AcpSession(
        acpLaunch(
          ctx,
          backend,
          preset,
          shared.pool('acp', (b) => new AcpProcesses(b)),
        ),
      ),
  };
}

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
    session: (ctx, shared) => new CodexSession(codexLaunch(ctx, codexServers(shared))),
    history: (ctx, shared) => codexHistory(ctx, codexServers(shared)),
  },
  acp: acpEntry('acp'),
  'acp:claude': acpEntry('acp:claude'),
  'acp:codex': acpEntry('acp:codex'),
  'acp:gemini': acpEntry('acp:gemini'),
  'acp:qwen': acpEntry('acp:qwen'),
  'acp:copilot': acpEntry('acp:copilot'),
  'claude-attached': {
    binary: CLAUDE_BINARY,
    env: claudeEnv,
    doctor: { agent: claudeChecks, backend: tmuxChecks },
    capabilities: AttachedTmuxSession.CAPABILITIES,
    session: (ctx) => new AttachedTmuxSession(attachedLaunch(ctx)),
  },
} satisfies Record<SessionKind, AgentEntry>;

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
