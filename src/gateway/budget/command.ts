/**
 * /budget: today's spending of the conversation's project against its daily budget; /budget <usd>
 * sets today's budget (owners only, as every command), and messages the budget held run at once,
 * in order, when it now allows them.
 */
import type { Budgets } from './budgets.js';
import { budgetLine, usd } from './texts.js';

const AMOUNT = /^\$?(\d{1,7}(?:\.\d{1,4})?)$/;

export interface BudgetCommandDeps {
  budgets: Budgets;
  /** Puts what the project's budget held back in line; how many messages. */
  release(project: string): number;
}

export function budgetCommand(d: BudgetCommandDeps, conversationId: string, args: string, by: string): string {
  const now = Date.now();
  if (!args) {
    const b = d.budgets.of(conversationId);
    return [
      `Project: ${b.project}`,
      `Today (${b.day}): ${budgetLine(b, now)}`,
      'Change: /budget <usd> sets today’s budget for this project, e.g. /budget 20',
    ].join('\n');
  }
  const m = AMOUNT.exec(args.trim());
  if (!m || Number(m[1]) > 1_000_000)
    return `"${args.slice(0, 40)}" is not an amount. Usage: /budget <usd>, e.g. /budget 20 or /budget 7.50.`;
  const b = d.budgets.raise(conversationId, Number(m[1]), by);
  const held = d.release(b.project);
  const runs = held ? ` ${held} held message(s) run now${b.over ? ' if it allows them' : ''}.` : '';
  return (
    `Today's budget for project ${b.project} is now ${usd(b.limitUsd ?? 0)} (spent ${usd(b.spent.usd)}).` +
    `${b.over ? ' It is still spent: new turns keep waiting until midnight or a higher /budget.' : ''}${runs}`
  );
}
