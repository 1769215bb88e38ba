/**
 * Projects as the gateway uses them: the configured ones with their paths resolved, or, without a
 * `projects` section, the one implicit project "default" in agent.cwd. The agent settings of a
 * project are agent.* with each key the project sets replacing the one there.
 */
import path from 'node:path';
import type { PermissionMode } from '../agents/claude/args.js';
import { expandPath } from '../config/projects.js';
import type { AgentConfig, Config } from '../config/schema.js';

export const IMPLICIT_PROJECT = 'default';

export interface Project {
  name: string;
  /** Absolute path of the directory the agent works in ('' for a project on a node: the node knows it). */
  path: string;
  /** The node this project lives on (its agents run there); undefined for a project of this machine. */
  node?: string;
  /** True for the one project Rudder makes of agent.cwd when no projects are configured. */
  implicit: boolean;
  /** Where this project's conversation worktrees go, or false when it has none. */
  worktrees: false | { dir: string | undefined };
  model?: string;
  permissionMode?: PermissionMode;
  backend?: AgentConfig['backend'];
  allowedTools?: string[];
  disallowedTools?: string[];
  appendSystemPrompt?: string;
  /** Its own budget.dailyUsd, when it sets one (else the top-level one applies). */
  dailyBudgetUsd?: number;
}

export interface ProjectSet {
  projects: Project[];
  defaultName: string;
}

export function projectSet(cfg: Config, startDir = process.cwd()): ProjectSet {
  if (!cfg.projects || Object.keys(cfg.projects).length === 0) {
    const cwd = path.resolve(startDir, cfg.agent.cwd ?? '.');
    return {
      projects: [{ name: IMPLICIT_PROJECT, path: cwd, implicit: true, worktrees: false }],
      defaultName: IMPLICIT_PROJECT,
    };
  }
  const projects = Object.entries(cfg.projects).map(
    ([name, p]): Project => ({
      name,
      path: p.path === undefined ? '' : expandPath(p.path, startDir),
      ...(p.node ? { node: p.node } : {}),
      implicit: false,
      worktrees:
        p.worktrees === false
          ? false
          : { dir: typeof p.worktrees === 'object' ? expandPath(p.worktrees.dir, startDir) : undefined },
      model: p.model,
      permissionMode: p.permissionMode,
      backend: p.backend,
      allowedTools: p.allowedTools,
      disallowedTools: p.disallowedTools,
      appendSystemPrompt: p.appendSystemPrompt,
      ...(p.budget ? { dailyBudgetUsd: p.budget.dailyUsd } : {}),
    }),
  );
  return { projects, defaultName: cfg.defaultProject ?? projects[0]!.name };
}

export function findProject(set: ProjectSet, name: string): Project | undefined {
  return set.projects.find((p) => p.name === name);
}

/** "api, web" — for messages that say which projects exist. */
export function projectNames(set: ProjectSet): string {
  return set.projects.map((p) => p.name).join(', ');
}

/**
 * The project a channel's config binds a conversation to: its full key (a topic, a thread) first,
 * then the chat it is in (the key before the first ":").
 */
export function channelProject(cfg: Config, channel: string, key: string): string | undefined {
  const bindings = (cfg.channels as Record<string, { projects?: Record<string, string> } | undefined>)[channel]
    ?.projects;
  if (!bindings) return undefined;
  return bindings[key] ?? bindings[key.split(':')[0]!];
}

/** The daily budget in USD a project runs under (its own, else the top-level one); undefined: none. */
export function projectBudget(cfg: Config, p: Project): number | undefined {
  return p.dailyBudgetUsd ?? cfg.budget?.dailyUsd;
}

/** The agent settings a conversation in this project runs with. */
export function projectAgent(agent: AgentConfig, p: Project) {
  return {
    backend: p.backend ?? agent.backend,
    model: p.model ?? agent.model,
    permissionMode: p.permissionMode ?? agent.permissionMode,
    allowedTools: p.allowedTools ?? agent.allowedTools,
    disallowedTools: p.disallowedTools ?? agent.disallowedTools,
    appendSystemPrompt: p.appendSystemPrompt ?? agent.appendSystemPrompt,
  };
}
