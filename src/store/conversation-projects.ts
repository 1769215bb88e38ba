/**
 * What a conversation has in each project it has worked in: the session it last had there (so
 * `/project` back to a project resumes it) and its own git worktree and branch.
 */
import type { Db } from './db.js';
import type { ConversationProjectSqlRow } from './sql-rows.js';

export interface ConversationProjectRow {
  conversationId: string;
  project: string;
  sessionId: string | null;
  worktree: string | null;
  branch: string | null;
  updatedAt: number;
}

const toRow = (r: ConversationProjectSqlRow): ConversationProjectRow => ({
  conversationId: r.conversation_id,
  project: r.project,
  sessionId: r.session_id,
  worktree: r.worktree,
  branch: r.branch,
  updatedAt: r.updated_at,
});

export class ConversationProjects {
  private readonly s;

  constructor(db: Db) {
    const p = (sql: string) => db.prepare<unknown[], ConversationProjectSqlRow>(sql);
    this.s = {
      get: p('SELECT * FROM conversation_projects WHERE conversation_id = ? AND project = ?'),
      ofConversation: p('SELECT * FROM conversation_projects WHERE conversation_id = ? ORDER BY updated_at DESC'),
      bySession: p('SELECT * FROM conversation_projects WHERE session_id = ?'),
      byBranch: p(
        `SELECT * FROM conversation_projects WHERE branch = ? AND (? IS NULL OR project = ?)
         ORDER BY updated_at DESC LIMIT 1`,
      ),
      saveSession: p(
        `INSERT INTO conversation_projects (conversation_id, project, session_id, updated_at) VALUES (?, ?, ?, ?)
                      ON CONFLICT (conversation_id, project) DO UPDATE SET session_id = excluded.session_id, ` +
          `updated_at = excluded.updated_at`,
      ),
      saveWorktree: p(
        `INSERT INTO conversation_projects (conversation_id, project, worktree, branch, updated_at) VALUES ` +
          `(?, ?, ?, ?, ?)
                       ON CONFLICT (conversation_id, project) DO UPDATE SET worktree = excluded.worktree, ` +
          `branch = excluded.branch, updated_at = excluded.updated_at`,
      ),
    };
  }

  get(conversationId: string, project: string): ConversationProjectRow | undefined {
    const r = this.s.get.get(conversationId, project);
    return r ? toRow(r) : undefined;
  }

  /** Every project the conversation has worked in, most recent first. */
  ofConversation(conversationId: string): ConversationProjectRow[] {
    return this.s.ofConversation.all(conversationId).map(toRow);
  }

  /** The conversations (and projects) whose saved session is this one. */
  holdersOf(sessionId: string): ConversationProjectRow[] {
    return this.s.bySession.all(sessionId).map(toRow);
  }

  /** The conversation whose worktree is on this branch (in a project, when one is named). */
  byBranch(branch: string, project?: string): ConversationProjectRow | undefined {
    const r = this.s.byBranch.get(branch, project ?? null, project ?? null);
    return r ? toRow(r) : undefined;
  }

  saveSession(conversationId: string, project: string, sessionId: string | null): void {
    this.s.saveSession.run(conversationId, project, sessionId, Date.now());
  }

  saveWorktree(conversationId: string, project: string, worktree: string | null, branch: string | null): void {
    this.s.saveWorktree.run(conversationId, project, worktree, branch, Date.now());
  }
}
