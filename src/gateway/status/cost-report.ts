/** The `cost` part of the status report: today's spending in all, per project with its budget, per conversation. */
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import type { Budgets } from '../budget/budgets.js';
import type { CostReport } from './report-types.js';

export function costReport(d: { store: Store; projects: Projects; budgets: Budgets }): CostReport {
  const { start, end, day } = d.budgets.today();
  const spend = d.store.spend;
  const held = new Map<string, number>();
  for (const [conversationId, n] of spend.heldByConversation()) {
    const project = d.budgets.projectOf(conversationId);
    held.set(project, (held.get(project) ?? 0) + n);
  }
  const names = new Set([...d.projects.set().projects.map((p) => p.name), ...spend.byProject(start, end).keys()]);
  return {
    day,
    dayStartedAt: new Date(start).toISOString(),
    resetsAt: new Date(end).toISOString(),
    today: spend.sum(start, end),
    projects: [...names].map((project) => {
      const b = d.budgets.ofProject(project);
      return {
        project,
        ...b.spent,
        budgetUsd: b.limitUsd ?? null,
        budgetSource: b.source,
        over: b.over,
        heldMessages: held.get(project) ?? 0,
      };
    }),
    conversations: spend.byConversation(start, end, 100).map((c) => ({ conversationId: c.conversationId, ...c.spend })),
  };
}
