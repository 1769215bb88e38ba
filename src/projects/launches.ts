/**
 * How a conversation's agent is launched, by its project: the project's directory (or the
 * conversation's own worktree there), its agent settings over agent.*, the conversation's own model,
 * the session id kept under the project; the process tracker and orphan mark; the processes every
 * conversation shares (the spare claude process, the backends' pools: Codex's app-servers, the ACP
 * agents). The backend's entry in the
 * agent table (agents/table.ts) makes the session; a project on a node gets the session the caller
 * registered for nodes (the front's link to them). The agents' health reads the same backends.
 */
import { SpareProcess } from '../agents/claude/spare.js';
import { markPrefixOf } from '../agents/common/orphans.js';
import type { SharedProcessStatus } from '../agents/common/process-status.js';
import { AgentHealth } from '../agents/health.js';
import type { SessionHistory } from '../agents/history.js';
import type { LaunchContext } from '../agents/launch.js';
import type { SessionFactory } from '../agents/pool.js';
import { spareProcess, warmCap } from '../agents/registry.js';
import type { AgentSession } from '../agents/session.js';
import { type AgentEntry, entryOf, type PoolBase, type SharedPool, type SharedProcesses } from '../agents/table.js';
import { type TmuxLaunch, tmuxLaunch } from '../agents/tmux/tmux-launch.js';
import type { LiveConfig } from '../config/load.js';
import { RudderError } from '../errors.js';
import type { RemoteLaunch } from '../nodes/front/remote-launch.js';
import type { Logger } from '../ops/logger.js';
import type { Store } from '../store/store.js';
import { type Project, projectAgent } from './projects.js';
import type { Projects } from './service.js';
import { terminalSession } from './terminals.js';

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

export class AgentLaunches {
  readonly markPrefix: string;
  readonly spare: SpareProcess;
  /** The backends' pools of shared processes, by name (codex, acp), each made at its first use. */
  private readonly pools = new Map<string, SharedPool>();
  /** The binaries of the agents the config's backends run on (a warning at start, the status report). */
  readonly health: AgentHealth;

  constructor(private readonly d: AgentLaunchesDeps) {
    this.markPrefix = markPrefixOf(d.dataDir);
    this.spare = new SpareProcess(d.log);
    this.health = new AgentHealth({
      inUse: () => this.backendsInUse(),
      agent: () => d.config.current().agent,
      env: d.env,
    });
  }

  private tracker() {
    const { store } = this.d;
    return {
      started: (pid: number, label: string) => store.processStarted(pid, label),
      exited: (pid: number) => store.processExited(pid),
    };
  }

  /** Whether a process is kept started ahead for the next new conversation, and why (registry.ts). */
  spareProcess(): { on: boolean; why: string } {
    const { steering } = this.d.config.current();
    const { maxLive } = warmCap(steering.maxLive, this.d.memAvailable);
    return spareProcess(steering.spareProcess, maxLive, this.d.memAvailable);
  }

  /** The processes the conversations share. */
  private readonly shared: SharedProcesses = {
    spare: () => {
      const on = this.spareProcess().on;
      if (!on && this.spare.ready()) void this.spare.stop('steering.spareProcess turned off');
      return on ? this.spare : undefined;
    },
    pool: <T extends SharedPool>(name: string, make: (base: PoolBase) => T): T => {
      let pool = this.pools.get(name);
      if (!pool) {
        pool = make({ logger: this.d.log, tracker: this.tracker(), markPrefix: this.markPrefix });
        this.pools.set(name, pool);
      }
      return pool as T;
    },
  };

  /** Every process the conversations share, for the status report. */
  sharedProcesses(): SharedProcessStatus[] {
    return [...this.pools.values()].flatMap((p) => p.status());
  }

  /** A conversation's launch in its project (prepared: a worktree is made when it needs one). */
  private context(conversationId: string, sessionId: string | undefined): LaunchContext {
    const { config, projects, store, env, log, dataDir } = this.d;
    const agent = config.current().agent;
    const target = projects.prepare(conversationId);
    const settings = projectAgent(agent, target.project);
    const conv = store.conversation(conversationId);
    return {
      conversationId,
      cwd: target.cwd,
      agent,
      settings: {
        model: conv?.model ?? settings.model,
        permissionMode: settings.permissionMode,
        allowedTools: settings.allowedTools,
        disallowedTools: settings.disallowedTools,
        appendSystemPrompt: settings.appendSystemPrompt,
      },
      sessionId: target.rebound ? (conv?.sessionId ?? undefined) : sessionId,
      // Kept per project: a late report from a process of the project it left must not land in the new one.
      onSessionId: (id) => store.setProjectSession(conversationId, target.project.name, id),
      env,
      logger: log,
      dataDir,
      tracker: this.tracker(),
      markPrefix: this.markPrefix,
    };
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

  /** The backends the conversations run on here: agent.backend's and every local project's (a node checks its own). */
  private backendsInUse(): string[] {
    const cfg = this.d.config.current();
    const local = Object.values(cfg.projects ?? {}).filter((p) => !p.node);
    return [cfg.agent.backend, ...local.flatMap((p) => (p.backend ? [p.backend] : []))];
  }

  private entryFor(conversationId: string): AgentEntry {
    const backend = this.backendOf(conversationId);
    const entry = entryOf(backend);
    // The schema allows only the backends of the table: one missing here is a bug, never a silent Claude.
    if (!entry) throw new RudderError('CONFIG_INVALID', `No agent backend "${backend}".`, { conversationId });
    return entry;
  }

  /**
   * The backend is read when a session is created: the conversation's project's, else agent.backend; a
   * conversation whose agent runs in a terminal (attached to a pane, handed to one) gets that (terminals.ts).
   */
  factory(): SessionFactory {
    return {
      live: (c, s) => {
        const project = this.d.projects.peek(c);
        if (project.node) return this.remoteSession(c, s, project);
        const { store, log } = this.d;
        const terminal = terminalSession(c, { store, log, context: () => this.context(c, s), shared: this.shared });
        return terminal ?? this.entryFor(c).session(this.context(c, s), this.shared);
      },
    };
  }

  /**
   * The past sessions of a project of this machine, when its backend's agent lists them itself (Codex's threads);
   * undefined: they are Claude Code's files (projects/sessions.ts).
   */
  history(project: Project): SessionHistory | undefined {
    if (project.node) return undefined;
    const agent = this.d.config.current().agent;
    return entryOf(projectAgent(agent, project).backend)?.history?.({ agent, env: this.d.env }, this.shared);
  }

  /** The backend a conversation's project names (agent.backend by default). */
  backendOf(conversationId: string): string {
    return projectAgent(this.d.config.current().agent, this.d.projects.peek(conversationId)).backend;
  }

  /** The conversation's agent as its TUI would be launched in a pane: a hand-back resumes its session with it. */
  tuiLaunch(conversationId: string): TmuxLaunch {
    return tmuxLaunch(this.context(conversationId, undefined), undefined);
  }

  /** The agent a conversation runs on, as the person reads it mid-sentence ("Codex", "the agent on node gpu"). */
  agentName(conversationId: string): string {
    const node = this.d.projects.peek(conversationId).node;
    if (node) return `the agent on node ${node}`;
    const entry = this.entryFor(conversationId);
    return entry.label?.(this.d.config.current().agent) ?? entry.binary.agent;
  }

  /** A project on a node: a session whose real one runs there. */
  private remoteSession(c: string, s: string | undefined, project: Project): AgentSession {
    const why = `Project ${project.name} lives on node ${project.node}: add a nodes section.`;
    if (!this.d.remote) throw new RudderError('CONFIG_INVALID', why, { conversationId: c });
    return this.d.remote.session(this.remote(c, s, project.node!));
  }

  /** Stops what is not a session's own: the spare process and the shared pools (Codex's app-servers, ACP agents). */
  async stop(reason: string): Promise<void> {
    await Promise.all([this.spare.stop(reason, true), ...[...this.pools.values()].map((p) => p.stopAll(reason))]);
  }
}
