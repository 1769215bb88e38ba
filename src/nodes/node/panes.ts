/**
 * The person's panes on the node's machine, for a project that lives here: what runs now in the node's own tmux
 * servers (its config's agent.tmux.discover), `/attach` (the conversation's session here becomes the attached
 * session on that pane, with its row in the node's store) and `/detach` (let go; the pane goes on). The steps are
 * the front's own (projects/attach-commands.ts), run here with the node's pool; the front drives the attached
 * session as any remote one. After a restart of the node every attached conversation follows its pane again.
 * `rudder attach` for a conversation here opens its session in a pane of this machine (projects/terminal.ts): its
 * own or attached pane, a headless session moved to a pane, or Codex's line; the front's lane decides when.
 */
import type { AgentPool } from '../../agents/pool.js';
import type { AgentConfig } from '../../config/schema.js';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import { bindPane, detach, paneAgain, runningNow } from '../../projects/attach-commands.js';
import type { ProjectCommandDeps } from '../../projects/command-deps.js';
import type { Project } from '../../projects/projects.js';
import type { Running } from '../../projects/running.js';
import type { Projects } from '../../projects/service.js';
import { localWay, openHere, planWay, type TerminalDeps } from '../../projects/terminal.js';
import type { Store } from '../../store/store.js';
import type { Query, QueryAnswer } from '../wire.js';
import { ownProject, sessionDirs } from './own-project.js';

export type PaneQuery = Extract<Query, { type: 'running' | 'attach-pane' | 'detach-pane' | 'terminal' }>;

export interface NodePanesDeps {
  node: string;
  store: Store;
  projects: Projects;
  pool: AgentPool;
  /** The agents' launches here (a session moved to a pane starts with the conversation's own) and their config. */
  launches: TerminalDeps['launches'];
  agent(): AgentConfig;
  /** The node's tmux servers looked in (its own agent.tmux.discover). */
  tmuxServers(): readonly string[];
  /** The conversation's record here, bound to the project, as a turn's would be. */
  own(conversationId: string, project: string): void;
  /** Opens the conversation's session now and reports its turns (those typed in the terminal too). */
  follow(conversationId: string): void;
  log: Logger;
}

export function isPaneQuery(q: Query): q is PaneQuery {
  return q.type === 'running' || q.type === 'attach-pane' || q.type === 'detach-pane' || q.type === 'terminal';
}

export class NodePanes {
  constructor(private readonly d: NodePanesDeps) {}

  async answer(q: PaneQuery): Promise<QueryAnswer> {
    const p = ownProject(this.d.projects, this.d.node, q.project);
    const dirs = sessionDirs(this.d.projects, q.conversationId, p);
    const d = this.deps(q.conversationId);
    switch (q.type) {
      case 'running': {
        const { running, servers } = await runningNow(d, p, dirs);
        return { ok: true, running: running.map((r) => this.marked(r)), servers: [...servers] };
      }
      case 'attach-pane': {
        if (d.busy()) throw new RudderError('AGENT_BUSY', `A turn is running in ${p.name} on node ${this.d.node}.`);
        const pane = await paneAgain(d, p, dirs, q.pane);
        if ('code' in pane) return refusal(pane);
        this.d.own(q.conversationId, p.name);
        const refused = await bindPane(d, pane);
        if (refused) return refusal(refused);
        this.d.log.info({ conversationId: q.conversationId, pane: pane.label }, 'attached to a pane');
        return { ok: true, attached: pane };
      }
      case 'detach-pane':
        return { ok: true, detached: await detach(d) };
      case 'terminal':
        return this.terminal(q.conversationId, p, q.open);
    }
  }

  /** `rudder attach`: which way the conversation opens here, or open it (a move only while no turn runs here). */
  private async terminal(conversationId: string, p: Project, open: boolean): Promise<QueryAnswer> {
    const t = this.terminalDeps();
    // Bound to the project as a turn's record would be: its backend and launch are the project's here.
    this.d.own(conversationId, p.name);
    const way = localWay(t, conversationId);
    if (!open) return { ok: true, terminal: planWay(way) };
    if (way.way === 'move' && t.projectDeps(conversationId).busy())
      throw new RudderError('AGENT_BUSY', `A turn is running in ${p.name} on node ${this.d.node}.`);
    const { answer, told } = await openHere(t, conversationId);
    this.d.log.info({ conversationId, way: way.way }, 'opened in a terminal here');
    return { ok: true, opened: { ...answer, node: this.d.node }, ...(told ? { told } : {}) };
  }

  private terminalDeps(): TerminalDeps {
    const { store, projects, launches, log } = this.d;
    return { store, projects, launches, log, agent: () => this.d.agent(), projectDeps: (id) => this.deps(id) };
  }

  /** At start: every conversation attached to a pane here follows it again (a claude gone drops the row). */
  followAttached(): void {
    for (const a of this.d.store.attachments.all()) {
      if (a.kind !== 'pane') continue;
      try {
        this.d.follow(a.conversationId);
      } catch (err) {
        this.d.log.info({ conversationId: a.conversationId, err: String(err) }, 'an attached pane is not followed');
      }
    }
  }

  /** A pane the list shows, with the conversation that drives it here (the front has no row of it). */
  private marked(r: Running): Running {
    if (!r.attachable) return r;
    const row = this.d.store.attachments
      .all()
      .find((a) => a.kind === 'pane' && a.paneId === r.paneId && a.socket === r.socket);
    return row ? { ...r, attachedTo: row.conversationId } : r;
  }

  /** What /attach's steps use, for one conversation on this node. */
  private deps(conversationId: string): ProjectCommandDeps {
    const { store, projects, pool } = this.d;
    return {
      conversationId,
      projects,
      store,
      busy: () => pool.peek(conversationId)?.state() === 'busy',
      release: (reason) => pool.release(conversationId, reason),
      ownPid: () => pool.peek(conversationId)?.pid(),
      tmuxServers: () => this.d.tmuxServers(),
      follow: () => this.d.follow(conversationId),
    };
  }
}

function refusal(r: { code: string; text: string; detail: string }): QueryAnswer {
  return { ok: false, error: { code: r.code, message: r.text, context: { detail: r.detail } } };
}
