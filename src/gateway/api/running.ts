/**
 * The page's "Running now" on a new conversation: the Claude Code TUIs that run in the person's tmux
 * panes for a project, on this machine or on the node it lives on (and the claude processes that cannot be
 * attached, with why), and "Continue here", which makes a new conversation drive one of those panes with
 * /attach's own checks (projects/attach-commands.ts; a node's: run by the node, projects/node-panes.ts): the
 * pane found again with the same claude, one pane one conversation.
 */

import { WEB } from '../../channels/web/name.js';
import { RudderError } from '../../errors.js';
import {
  attachedText,
  bindPane,
  heldBy,
  type PaneRef,
  type PaneRefusal,
  paneAgain,
  runningNow,
} from '../../projects/attach-commands.js';
import type { ProjectCommandDeps } from '../../projects/command-deps.js';
import { nodeAttach } from '../../projects/node-panes.js';
import type { Project } from '../../projects/projects.js';
import type { RunningPane } from '../../projects/running.js';
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import { conversationIdOf } from '../intake/intake.js';
import type { CreatedConversation, RunningList } from './types.js';

export interface RunningDeps {
  store: Store;
  projects: Projects;
  /** The person's tmux servers looked in (agent.tmux.discover). */
  tmuxServers(): readonly string[];
  /** What /attach uses for one conversation: its release, its follow. */
  projectDeps(conversationId: string): ProjectCommandDeps;
  /** Asks the node a project lives on (what runs in its panes). */
  askNode?: ProjectCommandDeps['askNode'];
}

/** The project's directory alone: a new conversation has no worktree yet. */
const dirsOf = (p: Project) => [p.path];

/** What runs now in the project (a node's project: on the node, its tmux servers named). */
export async function runningList(d: RunningDeps, name: string): Promise<RunningList> {
  const p = d.projects.find(name);
  if (!p) throw new RudderError('PROJECT_UNKNOWN', `There is no project "${name}".`);
  const now = await runningNow(d, p, dirsOf(p));
  const running = now.running.map((r) =>
    r.attachable
      ? {
          attachable: true as const,
          ...{ socket: r.socket, paneId: r.paneId, pid: r.pid, label: r.label, state: r.state, cwd: r.cwd },
          ...(r.sessionId ? { sessionId: r.sessionId } : {}),
          ...(r.lastPrompt ? { lastPrompt: r.lastPrompt } : {}),
        }
      : r,
  );
  return { project: p.name, ...(p.node ? { node: p.node } : {}), servers: [...now.servers], running };
}

/** A new conversation of the page in the project, driving the pane named; refused as /attach refuses. */
export async function attachRunning(
  d: RunningDeps,
  name: string,
  ref: PaneRef,
  create: (title: string, project: string) => CreatedConversation | undefined,
): Promise<CreatedConversation> {
  const p = d.projects.find(name);
  if (!p) throw new RudderError('PROJECT_UNKNOWN', `There is no project "${name}".`);
  const pane = await paneAgain(d, p, dirsOf(p), ref);
  if ('code' in pane) throw new RudderError(pane.code, pane.detail, { pane: ref.paneId, pid: ref.pid });
  const held = p.node ? undefined : heldBy(d, pane);
  if (held) throw new RudderError(held.code, held.detail, { pane: pane.label });
  const created = create(`Pane ${pane.label}`, p.name);
  if (!created) throw new RudderError('PROJECT_UNKNOWN', `There is no project "${name}".`);
  const id = conversationIdOf(WEB, created.id);
  const deps = d.projectDeps(id);
  const refused = p.node ? await attachOnNode(deps, p, pane, id, d.store) : await bindPane(deps, pane);
  if (refused) {
    // Another attach took the pane while this one was made: the new conversation is put away, unused.
    d.store.setArchived(id, Date.now());
    throw new RudderError(refused.code, refused.detail, { pane: pane.label });
  }
  // The conversation opens with what /attach would have answered: which pane it drives, and what that means.
  deps.tell?.(id, attachedText(pane));
  return created;
}

/** The node attaches the new conversation's session there; a node that fails puts the conversation away. */
async function attachOnNode(
  deps: ProjectCommandDeps,
  p: Project,
  pane: RunningPane,
  id: string,
  store: Store,
): Promise<PaneRefusal | undefined> {
  try {
    const r = await nodeAttach(deps, p, pane);
    return 'code' in r ? r : undefined;
  } catch (err) {
    store.setArchived(id, Date.now());
    throw err;
  }
}
