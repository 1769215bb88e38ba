/**
 * Daily budgets: what a project may spend per local day (budget.dailyUsd, its own or the top-level
 * one), what it has spent (the costs stored with its turns), and a budget raised for the day with
 * /budget. The lanes ask before each new turn; past the budget the turn waits (lane/held.ts).
 * A day is the gateway machine's local calendar day; it resets at local midnight.
 */
import type { LiveConfig } from '../../config/load.js';
import { projectBudget } from '../../projects/projects.js';
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import type { Spend } from '../../store/types.js';

export interface Day {
  /** YYYY-MM-DD, local. */
  day: string;
  /** Local midnight that starts it, and the one that ends it (epoch ms). */
  start: number;
  end: number;
}

/** The local day `now` falls in. */
export function dayOf(now: number): Day {
  const d = new Date(now);
  const start = new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const end = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime();
  const pad = (n: number) => String(n).padStart(2, '0');
  return { day: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`, start, end };
}

export interface BudgetState extends Day {
  project: string;
  /** USD for the day; undefined: no budget. */
  limitUsd: number | undefined;
  /** config: budget.dailyUsd; raised: /budget set it for today; none: no budget. */
  source: 'config' | 'raised' | 'none';
  /** Who set today's budget with /budget. */
  setBy?: string;
  /** The project's turns that ended today. */
  spent: Spend;
  /** A budget is set and what was spent today reached it: new turns wait. */
  over: boolean;
}

export interface BudgetsDeps {
  config: LiveConfig;
  store: Store;
  projects: Projects;
  /** Moves the day's boundary by this much, read each time (tests of the midnight reset); 0 by default. */
  dayOffsetMs?: () => number;
}

export class Budgets {
  constructor(private readonly d: BudgetsDeps) {}

  /** Today, its bounds in real time (what the turns' end times are compared with). */
  today(): Day {
    const shift = this.d.dayOffsetMs?.() ?? 0;
    const d = dayOf(Date.now() + shift);
    return { day: d.day, start: d.start - shift, end: d.end - shift };
  }

  /** The project a conversation's turns count in. */
  projectOf(conversationId: string): string {
    return this.d.store.conversation(conversationId)?.project ?? this.d.projects.peek(conversationId).name;
  }

  /** The budget of the conversation's project today. */
  of(conversationId: string): BudgetState {
    return this.ofProject(this.projectOf(conversationId));
  }

  ofProject(project: string): BudgetState {
    const day = this.today();
    const raised = this.d.store.spend.budgetDay(project, day.day);
    const p = this.d.projects.find(project);
    const configured = p ? projectBudget(this.d.config.current(), p) : this.d.config.current().budget?.dailyUsd;
    const limitUsd = raised?.dailyUsd ?? configured;
    const spent = this.d.store.spend.sum(day.start, day.end, { project });
    return {
      ...day,
      project,
      limitUsd,
      source: raised ? 'raised' : configured !== undefined ? 'config' : 'none',
      ...(raised?.setBy ? { setBy: raised.setBy } : {}),
      spent,
      over: limitUsd !== undefined && spent.usd >= limitUsd,
    };
  }

  /** Whether a new turn of this conversation must wait; cheap when no budget applies (no sum is read). */
  check(conversationId: string): BudgetState | undefined {
    const project = this.projectOf(conversationId);
    const cfg = this.d.config.current();
    const p = this.d.projects.find(project);
    const configured = p ? projectBudget(cfg, p) : cfg.budget?.dailyUsd;
    if (configured === undefined && !this.d.store.spend.budgetDay(project, this.today().day)) return undefined;
    const state = this.ofProject(project);
    return state.over ? state : undefined;
  }

  /** Sets today's budget of the conversation's project (/budget <usd>); held messages are the caller's to run. */
  raise(conversationId: string, usd: number, by: string): BudgetState {
    const project = this.projectOf(conversationId);
    this.d.store.spend.setBudgetDay(project, this.today().day, usd, by);
    return this.ofProject(project);
  }
}
