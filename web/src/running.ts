/**
 * "Running now" on a new conversation: what runs in its project's directory (the person's Claude Code
 * TUIs in tmux panes, and the claudes that cannot be attached, with why), read when the conversation
 * opens empty; "Continue here" makes a new conversation that drives one of those panes, and opens it.
 * A refusal (the claude left the pane, another conversation drives it) shows beside the pane.
 */
import type { RunningPaneItem } from '../../src/http/wire.js';
import { ApiError, UnreachableError } from './api.js';
import { api, explain, failed, getState, type RunningState, set } from './app-store.js';
import { openConversation } from './conversation.js';
import { refreshList } from './list-refresh.js';

/** Changes the section's state while it still shows this project. */
function patch(project: string, change: Partial<RunningState>): void {
  set((s) => (s.running?.project === project ? { running: { ...s.running, ...change } } : {}));
}

/** The gateway's words; a lost gateway or token also shows as the connection's state. */
function refusal(err: unknown): string {
  if (err instanceof UnreachableError || (err instanceof ApiError && err.status === 401)) failed(err);
  return explain(err);
}

export async function loadRunning(project: string): Promise<void> {
  if (getState().running?.project !== project) set({ running: { project } });
  try {
    const list = await api().running(project);
    patch(project, { list, error: undefined });
  } catch (err) {
    patch(project, { error: refusal(err) });
  }
}

export async function continueHere(project: string, pane: RunningPaneItem): Promise<void> {
  if (getState().running?.attaching) return;
  patch(project, { attaching: pane.paneId, refused: undefined });
  try {
    const { id } = await api().attachRunning(project, { socket: pane.socket, paneId: pane.paneId, pid: pane.pid });
    set({ running: undefined });
    await refreshList();
    await openConversation(id);
  } catch (err) {
    patch(project, { attaching: undefined, refused: { paneId: pane.paneId, text: refusal(err) } });
    // What runs may have changed (the claude left the pane): the list is read again, the refusal kept.
    void loadRunning(project);
  }
}
