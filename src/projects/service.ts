/**
 * A conversation's project: the one it chose (`/project`, or when created in the web app), else
 * the one its channel binds its chat or topic to, else the default project. It is recorded at
 * first use, so a later change of defaultProject does not move a conversation that is working.
 * A project that is no longer configured is replaced by that same choice, with a warning.
 */
import fs from 'node:fs';
import { buildAgentEnv } from '../agents/claude/env.js';
import { claudeConfigDir } from '../agents/tmux/transcript/transcript.js';
import type { Config } from '../config/schema.js';
import { RudderError } from '../errors.js';
import type { Logger } from '../ops/logger.js';
import type { Store } from '../store/store.js';
import { channelProject, findProject, type Project, type ProjectSet, projectNames, projectSet } from './projects.js';
import type { RunningPane } from './running.js';
import { ensureWorktree, type Worktree } from './worktree.js';

export interface LaunchTarget {
  project: Project;
  /** Where the agent works: the project's directory, or the conversation's worktree of it. */
  cwd: string;
  worktree?: Worktree;
  /** The conversation moved to another project just now (its own was removed from the config). */
  rebound: boolean;
}

export interface ProjectsOptions {
  store: Store;
  config: () => Config;
  /** Rudder's environment, from which the agent's is built (its HOME holds the CLI's sessions). */
  env: NodeJS.ProcessEnv;
  log: Logger;
}

export class Projects {
  /** The numbered list each conversation was last shown by /sessions, so /resume <n> means what the person saw. */
  readonly listings = new Map<string, string[]>();
  /** The panes each conversation was last shown as running now, so /attach <n> means what the person saw. */
  readonly runningPanes = new Map<string, RunningPane[]>();

  constructor(private readonly o: ProjectsOptions) {}

  set(): ProjectSet {
    return projectSet(this.o.config());
  }

  find(name: string): Project | undefined {
    return findProject(this.set(), name);
  }

  /** The project by name, or PROJECT_UNKNOWN saying which exist. */
  require(name: string): Project {
    const set = this.set();
    const p = findProject(set, name);
    if (!p)
      throw new RudderError('PROJECT_UNKNOWN', `There is no project "${name}". Projects: ${projectNames(set)}.`, {
        project: name,
      });
    return p;
  }

  /** The project of a new conversation (no choice yet): its channel's binding, else the default. */
  initial(channel: string, key: string): Project {
    const set = this.set();
    const bound = channelProject(this.o.config(), channel, key);
    return (bound && findProject(set, bound)) || findProject(set, set.defaultName)!;
  }

  /** The conversation's project, without recording anything (for listings). */
  peek(conversationId: string): Project {
    const conv = this.o.store.conversation(conversationId);
    const chosen = conv?.project ? this.find(conv.project) : undefined;
    if (chosen) return chosen;
    const [channel, ...key] = conversationId.split(':');
    return this.initial(conv?.channel ?? channel!, conv?.key ?? key.join(':'));
  }

  /** The conversation's project, recorded on first use; a removed project is replaced. */
  of(conversationId: string): { project: Project; rebound: boolean } {
    const { store, log } = this.o;
    const conv = store.conversation(conversationId);
    const chosen = conv?.project ? this.find(conv.project) : undefined;
    if (chosen || !conv) return { project: chosen ?? this.peek(conversationId), rebound: false };
    const project = this.peek(conversationId);
    if (conv.project) {
      log.warn(
        { conversationId, was: conv.project, now: project.name },
        "the conversation's project is no longer configured: it moves to another one",
      );
      store.setProject(
        conversationId,
        project.name,
        store.projects.get(conversationId, project.name)?.sessionId ?? null,
      );
      return { project, rebound: true };
    }
    // First use: a session it already has (from before projects) stays with it.
    store.setProject(conversationId, project.name, conv.sessionId);
    return { project, rebound: false };
  }

  /** Binds the conversation to a project; the session it had there (if any) is resumed. */
  bind(conversationId: string, name: string): { project: Project; resumes: string | null; changed: boolean } {
    const { store } = this.o;
    const project = this.require(name);
    const conv = store.conversation(conversationId);
    if (conv?.project === name) return { project, resumes: conv.sessionId, changed: false };
    const resumes = store.projects.get(conversationId, name)?.sessionId ?? null;
    store.setProject(conversationId, name, resumes);
    return { project, resumes, changed: true };
  }

  /** For an agent launch: the project and the directory to work in (the worktree is made on first use). */
  prepare(conversationId: string): LaunchTarget {
    const { project, rebound } = this.of(conversationId);
    if (!fs.existsSync(project.path)) {
      const key = project.implicit ? 'agent.cwd' : `projects.${project.name}.path`;
      throw new RudderError(
        'PROJECT_UNAVAILABLE',
        `${project.path} (project ${project.name}) does not exist any more. Fix ${key}, or move this ` +
          `conversation with /project.`,
        { conversationId, project: project.name },
      );
    }
    if (!project.worktrees) return { project, cwd: project.path, rebound };
    const known = this.o.store.projects.get(conversationId, project.name);
    const worktree = ensureWorktree(project, conversationId, known);
    if (known?.worktree !== worktree.path || known.branch !== worktree.branch) {
      this.o.store.projects.saveWorktree(conversationId, project.name, worktree.path, worktree.branch);
      this.o.log.info(
        { conversationId, project: project.name, worktree: worktree.path, branch: worktree.branch },
        'worktree ready',
      );
    }
    return { project, cwd: worktree.cwd, worktree, rebound };
  }

  /** The conversation's worktree in a project, when it has one. */
  worktreeOf(conversationId: string, project: string): { worktree: string | null; branch: string | null } | undefined {
    return this.o.store.projects.get(conversationId, project);
  }

  /**
   * Where the conversation's work is, for its review: its worktree (top) in a project with worktrees,
   * else the project's own directory; undefined while a project with worktrees has not made one yet, and for a
   * project on a node.
   */
  workTree(conversationId: string): { project: Project; dir: string; worktree: boolean } | undefined {
    const project = this.peek(conversationId);
    if (project.node) return undefined; // its directory is on the node's machine
    if (!project.worktrees) return { project, dir: project.path, worktree: false };
    const wt = this.o.store.projects.get(conversationId, project.name)?.worktree;
    return wt && fs.existsSync(wt) ? { project, dir: wt, worktree: true } : undefined;
  }

  /** The CLI's config dir in the agent's environment (agent.env may give the agent its own HOME). */
  configDir(): string {
    const agent = this.o.config().agent;
    return claudeConfigDir(buildAgentEnv({ inherited: this.o.env, passVars: agent.passEnv, extra: agent.env }));
  }
}
