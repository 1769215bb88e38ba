/**
 * Which conversation owns a pull request: the one whose branch it was opened from (by /pr, the page, or the agent,
 * as GitHub's pull_request "opened" event tells), per project and repository. GitHub's events about the PR (a check
 * failed, a review, a comment) go to that conversation; a closed PR is forgotten.
 */
import type { Db } from './db.js';

export interface PrOwnerRow {
  project: string;
  repository: string;
  pr: number;
  branch: string;
  conversationId: string;
  openedAt: number;
}

interface SqlRow {
  project: string;
  repository: string;
  pr: number;
  branch: string;
  conversation_id: string;
  opened_at: number;
}

const toRow = (r: SqlRow): PrOwnerRow => ({
  project: r.project,
  repository: r.repository,
  pr: r.pr,
  branch: r.branch,
  conversationId: r.conversation_id,
  openedAt: r.opened_at,
});

export class PrOwners {
  private readonly s;

  constructor(db: Db) {
    const p = (sql: string) => db.prepare<unknown[], SqlRow>(sql);
    this.s = {
      record: db.prepare(
        `INSERT INTO pr_owners (project, repository, pr, branch, conversation_id, opened_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (project, repository, pr) DO UPDATE SET branch = excluded.branch,
           conversation_id = excluded.conversation_id, opened_at = excluded.opened_at`,
      ),
      byPr: p('SELECT * FROM pr_owners WHERE repository = ? AND pr = ? AND (? IS NULL OR project = ?)'),
      ofConversation: p('SELECT * FROM pr_owners WHERE conversation_id = ? ORDER BY opened_at DESC'),
      forget: db.prepare('DELETE FROM pr_owners WHERE repository = ? AND pr = ? AND (? IS NULL OR project = ?)'),
    };
  }

  record(o: Omit<PrOwnerRow, 'openedAt'>, at = Date.now()): void {
    this.s.record.run(o.project, o.repository, o.pr, o.branch, o.conversationId, at);
  }

  /** The owner of a PR of a repository, in a project when one is named. */
  byPr(repository: string, pr: number, project?: string): PrOwnerRow | undefined {
    const r = this.s.byPr.get(repository, pr, project ?? null, project ?? null);
    return r ? toRow(r) : undefined;
  }

  ofConversation(conversationId: string): PrOwnerRow[] {
    return this.s.ofConversation.all(conversationId).map(toRow);
  }

  /** A closed PR has no owner any more. */
  forget(repository: string, pr: number, project?: string): void {
    this.s.forget.run(repository, pr, project ?? null, project ?? null);
  }
}
