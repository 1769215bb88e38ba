/** What people read about costs and budgets: amounts, token counts, the held notice, /budget's answers. */
import type { Spend } from '../../store/types.js';
import type { BudgetState } from './budgets.js';

/** "$0.0042" below a cent, "$1.25", "$1,234" from a thousand. */
export function usd(v: number): string {
  if (!Number.isFinite(v) || v <= 0) return '$0.00';
  if (v < 0.01) return `$${v.toFixed(4)}`;
  if (v < 1000) return `$${v.toFixed(2)}`;
  return `$${Math.round(v).toLocaleString('en-US')}`;
}

/** "950", "12.3k", "1.2M". */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** "in 3 h 12 min", "in 8 min". */
export function inTime(ms: number): string {
  const min = Math.max(1, Math.round(ms / 60_000));
  return min < 60 ? `in ${min} min` : `in ${Math.floor(min / 60)} h ${min % 60} min`;
}

/** "$0.0421 · 3 turns · 12.3k tokens", saying what has no cost. */
export function spendLine(s: Spend): string {
  const all = s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheCreationTokens;
  const parts = [usd(s.usd), `${s.turns} turn${s.turns === 1 ? '' : 's'}`, `${tokens(all)} tokens`];
  if (s.turnsWithoutCost) parts.push(`${s.turnsWithoutCost} without a reported cost`);
  return parts.join(' · ');
}

/** "$4.80 of $5.00 a day (resets at midnight, in 3 h 12 min)", or that there is none. */
export function budgetLine(b: BudgetState, now: number): string {
  if (b.limitUsd === undefined) return 'no daily budget (budget.dailyUsd)';
  const how = b.source === 'raised' ? ` (set for today${b.setBy ? ` by ${b.setBy}` : ''})` : '';
  const state = b.over ? 'spent: new turns wait' : `${usd(Math.max(0, b.limitUsd - b.spent.usd))} left`;
  return `${usd(b.spent.usd)} of ${usd(b.limitUsd)} a day${how}, ${state}; resets at midnight, ${inTime(b.end - now)}`;
}

/** Told once when a project's budget holds a message. */
export function heldText(b: BudgetState, now: number): string {
  return (
    `⏸ Project ${b.project} has spent ${usd(b.spent.usd)} of its ${usd(b.limitUsd ?? 0)} daily budget, so this ` +
    `message waits. It runs when the budget resets at midnight (${inTime(b.end - now)}), or at once when an owner ` +
    "raises today's budget with /budget <usd>."
  );
}

/** The acknowledgement of a message that arrives while the budget holds the conversation. */
export const HELD_NOTE = 'the daily budget is spent; this runs when it resets or an owner raises it with /budget';

/** The stored reason of a message held by the budget. */
export const HELD_REASON = 'waiting for the daily budget';
