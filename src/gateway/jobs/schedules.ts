/**
 * Schedules as the owner manages them, from a chat (/schedules, /schedule ...) and from the page: each with its
 * cron line, next runs, last run and any missed or failed one; its runs, each with the conversation it ran in; run
 * one now, pause, resume; and schedules made, changed and removed from here. Those are kept in Rudder's store, never
 * written to the config file (the person's own, often in the agent's working directory): the config's schedules are
 * changed in the config file, and a kept schedule may not take a name the config has. Pauses are kept in the store
 * for both.
 */

import { WEB } from '../../channels/web/name.js';
import type { LiveConfig } from '../../config/load.js';
import { formatLocal } from '../../config/schedule-line/zone.js';
import { scheduleNameSchema } from '../../config/schedules-schema.js';
import { knownNames } from '../../config/schema.js';
import type { Logger } from '../../ops/logger.js';
import { checkSchedule, type ScheduleDef } from '../../schedules/definitions.js';
import { describeSchedule } from '../../schedules/describe.js';
import type { Scheduler } from '../../schedules/scheduler.js';
import type { FiringRow, RunOutcome as StoredOutcome } from '../../store/schedule-firings.js';
import type { Store } from '../../store/store.js';
import type {
  RunOutcome,
  RunsPage,
  RunView,
  ScheduleBody,
  ScheduleChange,
  ScheduleList,
  ScheduleStatus,
  ScheduleView,
} from './types.js';

/** The page's outcomes are the store's, one for one. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const outcomesAgree: Same<RunOutcome, StoredOutcome> = true;
void outcomesAgree;

const WEEK_MS = 7 * 24 * 3600_000;

const unknown = (name: string): ScheduleChange => ({
  ok: false,
  code: 'SCHEDULE_UNKNOWN',
  text: `There is no schedule ${name}. /schedules lists them.`,
});

const invalid = (name: string, problems: string[]): ScheduleChange => ({
  ok: false,
  code: 'SCHEDULE_INVALID',
  text: `Schedule ${name} was not saved:\n${problems.join('\n')}`,
});

export interface SchedulesDeps {
  config: LiveConfig;
  store: Store;
  scheduler: Scheduler;
  log: Logger;
}

export function runView(r: FiringRow): RunView {
  const web = r.conversationId?.startsWith(`${WEB}:`);
  return {
    slot: r.slot,
    outcome: r.outcome,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    conversationId: r.conversationId,
    pageKey: web ? r.conversationId!.slice(WEB.length + 1) : null,
    costUsd: r.costUsd,
    reason: r.reason,
    missedCount: r.missedCount,
  };
}

export class Schedules {
  constructor(private readonly d: SchedulesDeps) {}

  list(now = Date.now()): ScheduleList {
    const { scheduler } = this.d;
    const schedules = scheduler
      .definitions()
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((def) => this.view(def, now));
    return { schedules, problems: this.problems() };
  }

  get(name: string, now = Date.now()): ScheduleView | undefined {
    const def = this.d.scheduler.definition(name);
    return def && this.view(def, now);
  }

  runs(name: string, before: number | undefined, limit: number): RunsPage | undefined {
    if (!this.d.scheduler.definition(name)) return undefined;
    const rows = this.d.store.firings.history(name, limit + 1, before);
    return { runs: rows.slice(0, limit).map(runView), more: rows.length > limit };
  }

  async runNow(name: string, by: string): Promise<ScheduleChange> {
    if (!this.d.scheduler.definition(name)) return unknown(name);
    const r = await this.d.scheduler.runNow(name);
    this.d.log.info({ schedule: name, by, ok: r.ok }, 'schedule run now');
    return r.ok ? r : { ok: false, code: 'SCHEDULE_REFUSED', text: r.text };
  }

  pause(name: string, by: string): ScheduleChange {
    return this.setPaused(name, true, by);
  }

  resume(name: string, by: string): ScheduleChange {
    return this.setPaused(name, false, by);
  }

  /** Makes or changes a kept schedule; answers with its cron line and next three runs, or what was wrong. */
  put(name: string, body: ScheduleBody, by: string): ScheduleChange {
    const { store, scheduler, config } = this.d;
    if (Object.hasOwn(config.current().schedules, name))
      return { ok: false, code: 'SCHEDULE_REFUSED', text: `Schedule ${name} is in the config file: change it there.` };
    const named = scheduleNameSchema.safeParse(name);
    if (!named.success) return invalid(name, [`the name ${named.error.issues[0]?.message}`]);
    const checked = checkSchedule(body, knownNames(config.current()));
    if (!checked.ok) return invalid(name, checked.problems);
    const existed = scheduler.definition(name)?.origin === 'kept';
    store.keptSchedules.put(name, body, by);
    scheduler.reload();
    this.d.log.info({ schedule: name, by, existed }, existed ? 'kept schedule changed' : 'kept schedule added');
    const view = this.get(name);
    const when = describeSchedule(checked.config.cron, checked.config.timezone, Date.now());
    const said = when.ok ? when.text : checked.config.cron;
    return { ok: true, text: `Schedule ${name} ${existed ? 'changed' : 'added'}: ${said}.`, schedule: view };
  }

  remove(name: string, by: string): ScheduleChange {
    const { store, scheduler } = this.d;
    const def = scheduler.definition(name);
    if (def?.origin === 'config')
      return { ok: false, code: 'SCHEDULE_REFUSED', text: `Schedule ${name} is in the config file: remove it there.` };
    if (!store.keptSchedules.remove(name)) return unknown(name);
    store.keptSchedules.setPaused(name, false, by);
    store.firings.forget(name);
    scheduler.reload();
    this.d.log.info({ schedule: name, by }, 'kept schedule removed');
    return { ok: true, text: `Schedule ${name} removed.` };
  }

  /** The status report's lines: each schedule's next run, last run and newest problem, read off its view. */
  status(now = Date.now()): ScheduleStatus[] {
    const iso = (ms: number) => new Date(ms).toISOString();
    return this.d.scheduler.definitions().map((def) => {
      const { name, cron, timezone, paused, enabled, next, last, problem } = this.view(def, now);
      return {
        name,
        cron,
        timezone,
        paused,
        enabled,
        next: next[0] === undefined ? null : iso(next[0]),
        last: last ? { slot: iso(last.slot), outcome: last.outcome } : null,
        problem: problem
          ? {
              slot: iso(problem.slot),
              outcome: problem.outcome,
              missedCount: problem.missedCount,
              reason: problem.reason,
            }
          : null,
      };
    });
  }

  problems(): Array<{ name: string; why: string }> {
    return this.d.scheduler.problems();
  }

  private setPaused(name: string, paused: boolean, by: string): ScheduleChange {
    const { store, scheduler } = this.d;
    const def = scheduler.definition(name);
    if (!def) return unknown(name);
    if (def.paused === paused)
      return { ok: true, text: `Schedule ${name} is ${paused ? 'paused' : 'running'} already.` };
    store.keptSchedules.setPaused(name, paused, by);
    if (!paused) scheduler.resumed(name);
    scheduler.reload();
    this.d.log.info({ schedule: name, by }, paused ? 'schedule paused' : 'schedule resumed');
    const next = scheduler.next(name);
    const view = this.get(name);
    if (paused)
      return {
        ok: true,
        text: `Schedule ${name} paused: it runs again after /schedule resume ${name}.`,
        schedule: view,
      };
    const when = next === undefined ? 'it has no next run' : `next run ${view?.nextText}`;
    return { ok: true, text: `Schedule ${name} resumed: ${when}.`, schedule: view };
  }

  private view(def: ScheduleDef, now: number): ScheduleView {
    const { store, scheduler } = this.d;
    const first = scheduler.next(def.name);
    const next: number[] = [];
    for (let at = first; at !== undefined && next.length < 3; at = def.line.next(at)) next.push(at);
    const [last] = store.firings.history(def.name, 1);
    const problem = store.firings.lastProblem(def.name, now - WEEK_MS);
    return {
      name: def.name,
      origin: def.origin,
      line: def.cron,
      cron: def.line.cron,
      timezone: def.timezone,
      prompt: def.prompt,
      project: def.project ?? null,
      deliver: def.deliver ?? null,
      session: def.session,
      quiet: def.quiet,
      enabled: def.enabled,
      paused: def.paused,
      timeoutMinutes: def.timeoutMinutes,
      catchUpMinutes: def.catchUpMinutes,
      next,
      nextText: first === undefined ? null : formatLocal(first, def.timezone),
      last: last ? runView(last) : null,
      problem: problem ? runView(problem) : null,
    };
  }
}
