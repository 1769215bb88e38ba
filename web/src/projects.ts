/** What the page can say of a conversation's project: its name, and its git branch where it has one. */
import type { Project } from './types.js';
import type { ListItem } from './wire-extra.js';

/**
 * The branch the gateway gives a conversation in a project with a worktree per conversation (`rudder/web/<id>`,
 * src/projects/worktree.ts), once it has run a turn; the list's own `branch` when the gateway sends one. An id the
 * gateway would have to rewrite into a git-safe name is not guessed.
 */
export function branchOf(item: ListItem, projects: Project[] | undefined): string | null {
  if (item.branch !== undefined) return item.branch;
  const project = projects?.find((p) => p.name === item.project);
  if (!project?.worktrees || !item.sessionId) return null;
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/.test(item.id) || item.id.endsWith('.lock')) return null;
  return `rudder/web/${item.id}`;
}
