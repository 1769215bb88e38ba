/**
 * What runs now in a project's directories, for /sessions and the page's "Running now": every Claude
 * Code TUI in a pane of the person's tmux servers (agent.tmux.discover), found from the panes'
 * process trees (agents/tmux/attach/find-panes.ts: never by typing), with its session, pane, state by
 * the pane classifier and last prompt; and every other claude process with a session here, listed as
 * running but not attachable, with why (a headless `claude -p`, a TUI outside tmux or in a server
 * Rudder does not look in). Rudder's own agents are not among them: they are conversations already.
 */
import type { AttachedPane } from '../agents/tmux/attach/attachment.js';
import { findPaneTuis } from '../agents/tmux/attach/find-panes.js';
import { claudeProcess } from '../agents/tmux/attach/processes.js';
import type { PaneVerdict } from '../agents/tmux/screen/pane-state.js';
import { transcriptPath } from '../agents/tmux/transcript/transcript.js';
import { isInside } from '../config/projects.js';
import { describeTranscript, openSessions } from './sessions.js';

/** A TUI in a tmux pane: `/attach` drives it. */
export interface RunningPane extends AttachedPane {
  attachable: true;
  state: PaneVerdict;
  lastPrompt?: string;
  /** The conversation that drives it, when a node's list says (the front keeps no row for a node's pane). */
  attachedTo?: string;
}

/** A claude process with a session here that cannot be attached, and why. */
export interface RunningElsewhere {
  attachable: false;
  pid: number;
  sessionId: string;
  cwd: string;
  why: string;
}

export type Running = RunningPane | RunningElsewhere;

export interface RunningOptions {
  /** The person's tmux servers (agent.tmux.discover). */
  servers: readonly string[];
  /** The agent's config dir: where the CLI records the sessions its processes have open. */
  configDir: string;
}

/** Whether a directory is one of these or inside one. */
function within(dir: string | undefined, dirs: string[]): boolean {
  return dir !== undefined && dir !== '' && dirs.some((d) => isInside(dir, d));
}

function lastPromptOf(configDir: string, cwd: string, sessionId: string | undefined): string | undefined {
  if (!sessionId) return undefined;
  return describeTranscript(transcriptPath(configDir, cwd, sessionId))?.lastPrompt;
}

/** Why a claude process outside the discovered panes cannot be attached. */
function notAttachable(pid: number, entrypoint: string | undefined): string {
  if (entrypoint && entrypoint !== 'cli') return `a headless claude -p (pid ${pid}): it takes no typing`;
  const p = claudeProcess(pid);
  if (p?.tmuxSocket)
    return `a TUI in tmux server ${p.tmuxSocket} (pid ${pid}), which agent.tmux.discover does not name`;
  return `a TUI outside tmux (pid ${pid}${p?.tty ? ` on ${p.tty}` : ''}): only a TUI in a tmux pane can be attached`;
}

/** What runs in these directories now: the attachable TUIs first, then the rest with why. */
export async function runningIn(dirs: string[], o: RunningOptions): Promise<Running[]> {
  const panes: RunningPane[] = (await findPaneTuis(o.servers))
    .filter((t) => within(t.claude.session?.cwd || t.claude.cwd, dirs))
    .map((t) => {
      const cwd = t.claude.session?.cwd || t.claude.cwd || t.pane.path;
      const sessionId = t.claude.session?.id;
      return {
        attachable: true,
        socket: t.socket,
        paneId: t.pane.id,
        label: t.pane.label,
        pid: t.claude.pid,
        procStart: t.claude.procStart,
        configDir: t.claude.configDir,
        cwd,
        sessionId,
        state: t.state,
        lastPrompt: lastPromptOf(t.claude.configDir, cwd, sessionId),
      };
    });
  const inPanes = new Set(panes.map((p) => p.pid));
  const others: RunningElsewhere[] = [];
  for (const [sessionId, open] of openSessions(o.configDir)) {
    if (inPanes.has(open.pid) || !within(open.cwd, dirs) || claudeProcess(open.pid)?.rudders !== false) continue;
    others.push({
      attachable: false,
      pid: open.pid,
      sessionId,
      cwd: open.cwd ?? '',
      why: notAttachable(open.pid, open.entrypoint),
    });
  }
  return [...panes, ...others];
}
