/**
 * The Claude Code TUIs running in the panes of a person's tmux servers, found from each pane's
 * process tree (processes.ts), never by typing: for each, the pane (its id and `session:window.pane`),
 * the claude process and its session, and what the pane shows now by the pane classifier.
 * Rudder's own agents (they carry its mark) are left out: they are conversations already.
 */
import { Pane } from '../pane/pane.js';
import { type ServerPane, Tmux, type TmuxSocket } from '../pane/tmux.js';
import type { PaneVerdict } from '../screen/pane-state.js';
import { type ClaudeProcess, childrenByParent, claudeProcess, processTree } from './processes.js';

export interface PaneTui {
  /** The tmux server's socket path (what `tmux -S` takes). */
  socket: string;
  pane: ServerPane;
  claude: ClaudeProcess;
  state: PaneVerdict;
}

/** A configured server: `default` and other names are `tmux -L` sockets, a path is `tmux -S`. */
export function socketOf(entry: string): TmuxSocket {
  return entry.includes('/') ? { path: entry } : { name: entry };
}

/** Every TUI in a pane of these servers (a server not running has none). */
export async function findPaneTuis(servers: readonly string[]): Promise<PaneTui[]> {
  const children = childrenByParent();
  const found: PaneTui[] = [];
  for (const entry of new Set(servers)) {
    const tmux = new Tmux(socketOf(entry));
    for (const pane of await tmux.allPanes()) {
      if (pane.dead) continue;
      const claude = processTree(pane.pid, children)
        .map(claudeProcess)
        .find((c) => c !== undefined);
      if (!claude || claude.rudders) continue;
      const look = await new Pane(tmux, pane.id).look().catch(() => undefined);
      found.push({ socket: tmux.socketPath(), pane, claude, state: look?.verdict ?? 'not-ready' });
    }
  }
  return found;
}
