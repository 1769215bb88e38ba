/**
 * What turns cost, summed: over a stretch of time (a local day), for a project or a conversation,
 * and the per-project budgets raised for a day with /budget. A turn counts when it ended with a
 * result (its tokens are recorded); its USD counts only when its backend reported one.
 */
import type { Db } from './db.js';
import type { BudgetDaySqlRow, SpendSqlRow } from './sql-rows.js';
import type { Spend } from './types.js';

const SUM = `SELECT COALESCE(SUM(cost_usd), 0) AS usd, COUNT(*) AS turns,
  COALESCE(SUM(cost_usd IS NULL), 0) AS without_cost,
  SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
  SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_creation_tokens) AS cache_creation_tokens
  FROM turns WHERE input_tokens IS NOT NULL AND ended_at >= ? AND ended_at < ?`;

export function spendOf(r: SpendSqlRow | undefined): Spend {
  return {
    usd: r?.usd ?? 0,
    turns: r?.turns ?? 0,
    turnsWithoutCost: r?.without_cost ?? 0,
    inputTokens: r?.input_tokens ?? 0,
    outputTokens: r?.output_tokens ?? 0,
    cacheReadTokens: r?.cache_read_tokens ?? 0,
    cacheCreationTokens: r?.cache_creation_tokens ?? 0,
  };
}

export interface BudgetDay {
  project: string;
  day: string;
  dailyUsd: number;
  setBy: string | null;
  setAt: number;
}

export class SpendQueries {
  private readonly all;
  private readonly ofProject;
  private readonly ofConversation;
  private readonly perProject;
  private readonly perConversation;
  private readonly budgetGet;
  private readonly budgetPut;
  private readonly heldPerConversation;

  constructor(db: Db) {
    this.all = db.prepare<unknown[], SpendSqlRow>(SUM);
    this.ofProject = db.prepare<unknown[], SpendSqlRow>(`${SUM} AND project = ?`);
    this.ofConversation = db.prepare<unknown[], SpendSqlRow>(`${SUM} AND conversation_id = ?`);
    this.perProject = db.prepare<unknown[], SpendSqlRow & { project: string }>(
      `${SUM.replace('SELECT ', 'SELECT project, ')} AND project IS NOT NULL GROUP BY project ORDER BY project`,
    );
    this.perConversation = db.prepare<unknown[], SpendSqlRow & { conversation_id: string }>(
      `${SUM.replace('SELECT ', 'SELECT conversation_id, ')} GROUP BY conversation_id ORDER BY usd DESC, ` +
        'conversation_id LIMIT ?',
    );
    this.budgetGet = db.prepare<unknown[], BudgetDaySqlRow>('SELECT * FROM budget_days WHERE project = ? AND day = ?');
    this.budgetPut = db.prepare(
      'INSERT INTO budget_days (project, day, daily_usd, set_by, set_at) VALUES (?, ?, ?, ?, ?) ' +
        'ON CONFLICT (project, day) DO UPDATE SET daily_usd = excluded.daily_usd, set_by = excluded.set_by, ' +
        'set_at = excluded.set_at',
    );
    this.heldPerConversation = db.prepare<unknown[], { conversation_id: string; n: number }>(
      "SELECT conversation_id, COUNT(*) AS n FROM messages WHERE state = 'deferred' AND held_for = 'budget' " +
        'GROUP BY conversation_id',
    );
  }

  /** Turns ended in [from, to): all of them, or one project's or one conversation's. */
  sum(from: number, to: number, only: { project?: string; conversationId?: string } = {}): Spend {
    if (only.project !== undefined) return spendOf(this.ofProject.get(from, to, only.project));
    if (only.conversationId !== undefined) return spendOf(this.ofConversation.get(from, to, only.conversationId));
    return spendOf(this.all.get(from, to));
  }

  /** Per project, turns ended in [from, to). */
  byProject(from: number, to: number): Map<string, Spend> {
    return new Map(this.perProject.all(from, to).map((r) => [r.project, spendOf(r)]));
  }

  /** Per conversation, turns ended in [from, to), the most expensive first. */
  byConversation(from: number, to: number, limit: number): Array<{ conversationId: string; spend: Spend }> {
    return this.perConversation
      .all(from, to, limit)
      .map((r) => ({ conversationId: r.conversation_id, spend: spendOf(r) }));
  }

  /** The budget /budget set for a project on a local day, if any. */
  budgetDay(project: string, day: string): BudgetDay | undefined {
    const r = this.budgetGet.get(project, day);
    return r && { project: r.project, day: r.day, dailyUsd: r.daily_usd, setBy: r.set_by, setAt: r.set_at };
  }

  setBudgetDay(project: string, day: string, dailyUsd: number, by: string | null): void {
    this.budgetPut.run(project, day, dailyUsd, by, Date.now());
  }

  /** Messages held by a spent budget, per conversation. */
  heldByConversation(): Map<string, number> {
    return new Map(this.heldPerConversation.all().map((r) => [r.conversation_id, r.n]));
  }
}
