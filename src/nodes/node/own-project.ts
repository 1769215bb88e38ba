/**
 * A project the front names in a question to this node: one of the node's own (its directory from the node's
 * config, never from the wire), and where a conversation's sessions run in it here.
 */
import fs from 'node:fs';
import { RudderError } from '../../errors.js';
import type { Project } from '../../projects/projects.js';
import type { Projects } from '../../projects/service.js';

/** The node's project of that name; one it does not have (or one it would send elsewhere) is PROJECT_UNKNOWN. */
export function ownProject(projects: Projects, node: string, name: string): Project {
  const p = projects.find(name);
  if (!p || p.node)
    throw new RudderError('PROJECT_UNKNOWN', `Node ${node} has no project "${name}".`, { project: name });
  return p;
}

/** The project's directory and the conversation's worktree here (when it has one), where its sessions run. */
export function sessionDirs(projects: Projects, conversationId: string, p: Project): string[] {
  const wt = conversationId ? projects.worktreeOf(conversationId, p.name)?.worktree : undefined;
  return wt && fs.existsSync(wt) ? [p.path, wt] : [p.path];
}
