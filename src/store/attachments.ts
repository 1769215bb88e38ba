/**
 * What a conversation's agent runs in, when not the backend its project names: a person's tmux pane
 * it is attached to (`pane`), or the same pane let go of while it may still hold the session
 * (`detached`). One row per conversation at most.
 */
import type { Db } from './db.js';

export type AttachmentKind = 'pane' | 'detached';

export interface AttachmentRow {
  conversationId: string;
  kind: AttachmentKind;
  /** The tmux server's socket path and the pane's id there (`%12`); where the person finds it (`work:2.1`). */
  socket: string | null;
  paneId: string | null;
  label: string | null;
  /** The claude process in the pane, and its start time: with the pid, one process. */
  pid: number | null;
  procStart: string | null;
  /** Its config dir and the directory its session records. */
  configDir: string | null;
  cwd: string | null;
  /** The claude's session. */
  sessionId: string | null;
  at: number;
}

interface SqlRow {
  conversation_id: string;
  kind: AttachmentKind;
  socket: string | null;
  pane_id: string | null;
  label: string | null;
  pid: number | null;
  proc_start: string | null;
  config_dir: string | null;
  cwd: string | null;
  session_id: string | null;
  at: number;
}

const toRow = (r: SqlRow): AttachmentRow => ({
  conversationId: r.conversation_id,
  kind: r.kind,
  socket: r.socket,
  paneId: r.pane_id,
  label: r.label,
  pid: r.pid,
  procStart: r.proc_start,
  configDir: r.config_dir,
  cwd: r.cwd,
  sessionId: r.session_id,
  at: r.at,
});

export class Attachments {
  private readonly s;

  constructor(db: Db) {
    const p = (sql: string) => db.prepare<unknown[], SqlRow>(sql);
    this.s = {
      get: p('SELECT * FROM attachments WHERE conversation_id = ?'),
      all: p('SELECT * FROM attachments ORDER BY at'),
      put: p(
        `INSERT INTO attachments (conversation_id, kind, socket, pane_id, label, pid, proc_start, config_dir, cwd, ` +
          `session_id, at) VALUES (@conversationId, @kind, @socket, @paneId, @label, @pid, @procStart, @configDir, ` +
          `@cwd, @sessionId, @at) ON CONFLICT (conversation_id) DO UPDATE SET kind = excluded.kind, ` +
          `socket = excluded.socket, pane_id = excluded.pane_id, label = excluded.label, pid = excluded.pid, ` +
          `proc_start = excluded.proc_start, config_dir = excluded.config_dir, cwd = excluded.cwd, ` +
          `session_id = excluded.session_id, at = excluded.at`,
      ),
      session: p('UPDATE attachments SET session_id = ? WHERE conversation_id = ?'),
      remove: p('DELETE FROM attachments WHERE conversation_id = ?'),
    };
  }

  get(conversationId: string): AttachmentRow | undefined {
    const r = this.s.get.get(conversationId);
    return r ? toRow(r) : undefined;
  }

  all(): AttachmentRow[] {
    return this.s.all.all().map(toRow);
  }

  put(row: Omit<AttachmentRow, 'at'>): void {
    this.s.put.run({ ...row, at: Date.now() });
  }

  /** The terminal moved to another session (its /clear, its first one after a startup dialog). */
  setSession(conversationId: string, sessionId: string): void {
    this.s.session.run(sessionId, conversationId);
  }

  remove(conversationId: string): void {
    this.s.remove.run(conversationId);
  }
}
