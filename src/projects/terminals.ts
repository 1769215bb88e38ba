/**
 * The session of a conversation whose agent runs in a terminal (store/attachments.ts) instead of the
 * backend its project names: the person's tmux pane it is attached to (the claude-attached entry). A
 * pane it let go of (/detach) that still holds its session refuses a turn: two writers corrupt a
 * session; once the pane has closed it, the conversation resumes it in its own process as usual.
 */
import type { LaunchContext } from '../agents/launch.js';
import type { AgentSession } from '../agents/session.js';
import { type AgentEntry, entryOf, type SharedProcesses } from '../agents/table.js';
import type { AttachedPane } from '../agents/tmux/attach/attachment.js';
import { sameProcess, sessionFile } from '../agents/tmux/attach/processes.js';
import { RudderError } from '../errors.js';
import type { Logger } from '../ops/logger.js';
import type { AttachmentRow } from '../store/attachments.js';
import type { Store } from '../store/store.js';

export interface TerminalDeps {
  store: Store;
  log: Logger;
  /** The conversation's launch context, as its project's backend would get it. */
  context(): LaunchContext;
  shared: SharedProcesses;
}

/** The pane a row names, as the attached session takes it. */
function paneOfRow(row: AttachmentRow): AttachedPane {
  return {
    socket: row.socket ?? '',
    paneId: row.paneId ?? '',
    label: row.label ?? row.paneId ?? '',
    pid: row.pid ?? 0,
    procStart: row.procStart ?? undefined,
    configDir: row.configDir ?? '',
    cwd: row.cwd ?? '',
    sessionId: row.sessionId ?? undefined,
  };
}

/** The claude process a row names still runs (its start time unchanged). */
function claudeRuns(row: AttachmentRow): row is AttachmentRow & { pid: number } {
  return !!row.pid && sameProcess(row.pid, row.procStart ?? undefined);
}

/** The claude process a row names still runs, with the row's session open (a /clear there moves it away). */
export function paneHoldsSession(row: AttachmentRow): boolean {
  if (!claudeRuns(row)) return false;
  const now = sessionFile(row.configDir ?? '', row.pid, row.procStart ?? undefined)?.id;
  return !row.sessionId || now === undefined || now === row.sessionId;
}

const entry = (name: string): AgentEntry => entryOf(name)!;

/** The session a terminal gives the conversation; undefined: its project's backend, as usual. */
export function terminalSession(conversationId: string, d: TerminalDeps): AgentSession | undefined {
  const row = d.store.attachments.get(conversationId);
  if (!row) return undefined;
  switch (row.kind) {
    case 'pane':
      return attached(row, d);
    case 'detached':
      refuseWhileHeld(row);
      d.store.attachments.remove(conversationId);
      return undefined;
  }
}

function attached(row: AttachmentRow, d: TerminalDeps): AgentSession | undefined {
  const { store, log } = d;
  const c = row.conversationId;
  if (!claudeRuns(row)) {
    store.attachments.remove(c);
    log.info({ conversationId: c, pane: row.label }, "the attached pane's claude is gone: the conversation runs here");
    return undefined;
  }
  const ctx = d.context();
  const pane = paneOfRow(row);
  return entry('claude-attached').session(
    {
      ...ctx,
      sessionId: pane.sessionId,
      onSessionId: (id) => {
        ctx.onSessionId(id);
        store.attachments.setSession(c, id);
      },
      attached: {
        pane,
        gone: (why) => {
          store.attachments.remove(c);
          log.info({ conversationId: c, pane: row.label, why }, 'the conversation is no longer attached');
        },
      },
    },
    d.shared,
  );
}

/** After /detach: while the pane's claude still has the session open, no turn runs on it here. */
function refuseWhileHeld(row: AttachmentRow): void {
  if (!paneHoldsSession(row)) return;
  throw new RudderError(
    'SESSION_IN_TERMINAL',
    `Session ${row.sessionId ?? '(new)'} is still open in the terminal (pane ${row.label}, claude pid ${row.pid}): ` +
      'two programs writing one session corrupt it. Close it there (or /attach it again), then send your message ' +
      'again.',
    { conversationId: row.conversationId, pane: row.label, pid: row.pid ?? undefined },
  );
}
