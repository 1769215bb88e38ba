/**
 * How a conversation's agent is launched: its project's directory (or its own worktree there) and
 * agent settings, the binary, the allow-listed environment, the process tracker and orphan mark,
 * the spare process; and the session factory that picks the backend by the project's settings.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { LiveConfig } from '../config/load.js';
import { RudderError } from '../errors.js';
import type { RemoteLaunch } from '../nodes/front/remote-launch.js';
import type { Logger } from '../ops/logger.js';
import { type Project, projectAgent } from '../projects/projects.js';
import type { Projects } from '../projects/service.js';
import type { Store } from '../store/store.js';
import { resolveClaudeBinary } from './claude/binary.js';
import { buildAgentEnv } from './claude/env.js';
import type { ClaudeLaunch } from './claude/launch.js';
import { SpareProcess } from './claude/spare.js';
import { ClaudeStreamSession } from './claude/stream-session.js';
import { resolveCodexBinary } from './codex/binary.js';
import { CodexSession } from './codex/codex-session.js';
import { buildCodexEnv } from './codex/env.js';
import type { CodexLaunch } from './codex/launch.js';
import { CodexServers } from './codex/server/servers.js';
import { type AgentBinary, AgentHealth } from './health.js';
import type { SessionFactory } from './pool.js';
import { spareProcess, warmCap } from './registry.js';
import type { AgentSession } from './session.js';
import { paneName, type TmuxLaunch } from './tmux/tmux-launch.js';
import { ClaudeTmuxSession } from './tmux/tmux-session.js';

export interface AgentLaunchesDeps {
  dataDir: string;
  /** MemAvailable at start: whether a spare process fits (steering.spareProcess unset). */
  memAvailable: number | undefined;
  config: LiveConfig;
  store: Store;
  projects: Projects;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** Sessions of projects on other machines (nodes.*): the front's link to its nodes. */
  remote?: { session(launch: RemoteLaunch): AgentSession };
}

/** The mark every agent process of this data dir carries, so a restart finds exactly its leftovers. */
export function markPrefixOf(dataDir: string): string {
  return `rudder-${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12)}`;
}

/** A backend: the agent's name as people read it, the binary it runs, and how its session is made. */
interface Backend {
  agent: string;
  binary: AgentBinary;
  make(conversationId: string, sessionId: string | undefined): AgentSession;
}

export class AgentLaunches {
  readonly markPrefix: string;
  readonly spare: SpareProcess;
  /** Codex's app-servers, one shared by every conversation of the same binary, config and environment. */
  readonly codexServers: CodexServers;
  /** The binaries of the agents the config's backends run on (a warning at start, the status report). */
  readonly health: AgentHealth;

  constructor(private readonly d: AgentLaunchesDeps) {
    this.markPrefix = markPrefixOf(d.dataDir);
    this.spare = new SpareProcess(d.log);
    this.codexServers = new CodexServers({ logger: d.log, tracker: this.tracker(), markPrefix: this.markPrefix });
    this.health = new AgentHealth({
      inUse: () => this.agentsInUse(),
      claude: () => ({ configured: d.config.current().agent.claudeBin, env: d.env, agentEnv: this.agentEnv() }),
      codex: () => ({ configured: d.config.current().agent.codex.bin, env: d.env, agentEnv: this.codexEnv() }),
    });
  }

  private tracker() {
    const { store } = this.d;
    return {
      started: (pid: number, label: string) => store.processStarted(pid, label),
      exited: (pid: number) => store.processExited(pid),
    };
  }

  /** The launch of a conversation's Claude process, in its project (launches are synchronous). */
  claude(conversationId: string, sessionId: string | undefined): ClaudeLaunch {
    const { config, projects, store, env, log } = this.d;
    const agent = config.current().agent;
    const spareOn = this.spareProcess().on;
    if (!spareOn && this.spare.ready()) void this.spare.stop('steering.spareProcess turned off');
    // The conversation's project: its directory (or its own worktree there) and its agent settings.
    const target = projects.prepare(conversationId);
    const settings = projectAgent(agent, target.project);
    const conv = store.conversation(conversationId);
    let bin: string;
    try {
      bin = resolveClaudeBinary(agent.claudeBin, env).path;
    } catch (err) {
      log.error({ err: (err as Error).message }, 'no claude binary: run `rudder doctor`');
      bin = agent.claudeBin ?? 'claude';
    }
    return {
      conversationId,
      cwd: target.cwd,
      bin,
      env: this.agentEnv(),
      logger: log,
      sessionId: target.rebound ? (conv?.sessionId ?? undefined) : sessionId,
      model: conv?.model ?? settings.model,
      permissionMode: settings.permissionMode,
      allowedTools: settings.allowedTools,
      disallowedTools: settings.disallowedTools,
      appendSystemPrompt: settings.appendSystemPrompt,
      autocompact: agent.autocompact,
      turnTimeoutMs: agent.turnTimeoutSeconds * 1000,
      interruptGraceMs: agent.interruptGraceSeconds * 1000,
      // Kept per project: a late report from a process of the project it left must not land in the new one.
      onSessionId: (id) => store.setProjectSession(conversationId, target.project.name, id),
      tracker: this.tracker(),
      markPrefix: this.markPrefix,
      spare: spareOn ? this.spare : undefined,
    };
  }

  /** The launch of a conversation's Codex thread, in its project, on the shared app-server. */
  codex(conversationId: string, sessionId: string | undefined): CodexLaunch {
    const { config, projects, store, env, log } = this.d;
    const agent = config.current().agent;
    const target = projects.prepare(conversationId);
    const settings = projectAgent(agent, target.project);
    const conv = store.conversation(conversationId);
    return {
      conversationId,
      cwd: target.cwd,
      // Found at each server start: a binary installed later is found, a setting naming none fails the turn.
      bin: () => resolveCodexBinary(agent.codex.bin, env).path,
      config: agent.codex.config,
      env: this.codexEnv(),
      logger: log,
      sessionId: target.rebound ? (conv?.sessionId ?? undefined) : sessionId,
      model: conv?.model ?? settings.model,
      permissionMode: settings.permissionMode,
      appendSystemPrompt: settings.appendSystemPrompt,
      turnTimeoutMs: agent.turnTimeoutSeconds * 1000,
      interruptGraceMs: agent.interruptGraceSeconds * 1000,
      onSessionId: (id) => store.setProjectSession(conversationId, target.project.name, id),
      tracker: this.tracker(),
      markPrefix: this.markPrefix,
      servers: this.codexServers,
    };
  }

  /** Whether a process is kept started ahead for the next new conversation, and why (registry.ts). */
  spareProcess(): { on: boolean; why: string } {
    const { steering } = this.d.config.current();
    const { maxLive } = warmCap(steering.maxLive, this.d.memAvailable);
    return spareProcess(steering.spareProcess, maxLive, this.d.memAvailable);
  }

  /** The launch of a conversation's TUI in a tmux pane: the Claude launch plus the pane's settings. */
  tmux(conversationId: string, sessionId: string | undefined): TmuxLaunch {
    const t = this.d.config.current().agent.tmux;
    return {
      ...this.claude(conversationId, sessionId),
      tmux: {
        socket: t.socket,
        width: t.width,
        height: t.height,
        pasteFileThresholdBytes: t.pasteFileThresholdBytes,
        messageDir: path.join(this.d.dataDir, 'tmux-messages', paneName(conversationId)),
        readyTimeoutMs: t.readyTimeoutSeconds * 1000,
        arrivalRetries: t.arrivalRetries,
        arrivalTimeoutMs: t.arrivalTimeoutSeconds * 1000,
        autoAllow: t.autoAllow,
      },
    };
  }

  /** The environment of Codex's app-servers (codex/env.ts: Claude's allow-list less Claude's, plus Codex's keys). */
  private codexEnv(): Record<string, string> {
    const agent = this.d.config.current().agent;
    return buildCodexEnv({ inherited: this.d.env, passVars: agent.passEnv, extra: agent.env });
  }

  /** The environment every agent process gets (agent/claude/env.ts: an allow-list, then passEnv, then agent.env). */
  agentEnv(): Record<string, string> {
    const agent = this.d.config.current().agent;
    return buildAgentEnv({ inherited: this.d.env, passVars: agent.passEnv, extra: agent.env });
  }

  /** The launch of a conversation whose project lives on a node: the node runs it, by its own settings. */
  remote(conversationId: string, sessionId: string | undefined, node: string): RemoteLaunch {
    const { store, config, log } = this.d;
    const { project, rebound } = this.d.projects.of(conversationId);
    return {
      conversationId,
      node,
      project: project.name,
      sessionId: rebound ? (store.conversation(conversationId)?.sessionId ?? undefined) : sessionId,
      model: () => store.conversation(conversationId)?.model ?? undefined,
      onSessionId: (id) => store.setProjectSession(conversationId, project.name, id),
      interruptGraceMs: config.current().agent.interruptGraceSeconds * 1000,
      logger: log,
    };
  }

  /** Each backend by its config name: the agent's name as people read it, and how its session is made. */
  private readonly backends: Record<string, Backend> = {
    'claude-stream': { agent: 'Claude', binary: 'claude', make: (c, s) => new ClaudeStreamSession(this.claude(c, s)) },
    'claude-tmux': { agent: 'Claude', binary: 'claude', make: (c, s) => new ClaudeTmuxSession(this.tmux(c, s)) },
    codex: { agent: 'Codex', binary: 'codex', make: (c, s) => new CodexSession(this.codex(c, s)) },
  };

  /** The agents the backends run on here: agent.backend's and every local project's (a node checks its own). */
  private agentsInUse(): Set<AgentBinary> {
    const cfg = this.d.config.current();
    const local = Object.values(cfg.projects ?? {}).filter((p) => !p.node);
    const backends = [cfg.agent.backend, ...local.map((p) => p.backend)];
    return new Set(backends.flatMap((b) => (b && this.backends[b] ? [this.backends[b].binary] : [])));
  }

  private backendOf(conversationId: string) {
    const backend = projectAgent(this.d.config.current().agent, this.d.projects.peek(conversationId)).backend;
    const entry = this.backends[backend];
    // The schema allows only the backends of the table: one missing here is a bug, never a silent Claude.
    if (!entry) throw new RudderError('CONFIG_INVALID', `No agent backend "${backend}".`, { conversationId });
    return entry;
  }

  /** The backend is read when a session is created: the conversation's project's, else agent.backend. */
  factory(): SessionFactory {
    return {
      live: (c, s) => {
        const project = this.d.projects.peek(c);
        return project.node ? this.remoteSession(c, s, project) : this.backendOf(c).make(c, s);
      },
    };
  }

  /** The agent a conversation runs on, as the person reads it mid-sentence ("Codex", "the agent on node gpu"). */
  agentName(conversationId: string): string {
    const node = this.d.projects.peek(conversationId).node;
    return node ? `the agent on node ${node}` : this.backendOf(conversationId).agent;
  }

  /** A project on a node: a session whose real one runs there. */
  private remoteSession(c: string, s: string | undefined, project: Project): AgentSession {
    const why = `Project ${project.name} lives on node ${project.node}: add a nodes section.`;
    if (!this.d.remote) throw new RudderError('CONFIG_INVALID', why, { conversationId: c });
    return this.d.remote.session(this.remote(c, s, project.node!));
  }

  /** Stops what is not a session's own: the spare process and Codex's shared app-servers. */
  async stop(reason: string): Promise<void> {
    await Promise.all([this.spare.stop(reason, true), this.codexServers.stopAll(reason)]);
  }
}
