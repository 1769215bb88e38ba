/**
 * The schedule commands of a chat, the owner's alone (intake checks): /schedules lists each schedule with its cron
 * line, next run, last run's outcome, time and cost, and any missed or failed one; /schedule run|pause|resume
 * <name>; /schedule add <name> <when> | <prompt> (or the prompt on the lines after), /schedule edit the same way,
 * /schedule remove <name>. A schedule added here is kept in Rudder's store, delivers to this conversation, works in
 * its project and runs each time in a conversation of its own; it is answered back as its cron line and next three
 * runs, so nobody guesses what a plain form meant.
 */
import { formatLocal } from '../../config/schedule-line/zone.js';
import type { Projects } from '../../projects/service.js';
import type { Schedules } from '../jobs/schedules.js';
import type { RunView, ScheduleBody, ScheduleView } from '../jobs/types.js';

const USAGE = [
  'Usage:',
  '/schedules — every schedule, its next run and how its last one went',
  '/schedule run <name> — run it now',
  '/schedule pause <name>, /schedule resume <name>',
  '/schedule add <name> <when> | <prompt> — e.g. /schedule add standup weekdays at 09:00 | Summarise open PRs',
  '/schedule edit <name> <when> | <prompt> — change one added here',
  '/schedule remove <name> — remove one added here',
].join('\n');

const OUTCOME: Record<RunView['outcome'], string> = {
  running: 'running',
  ran: 'ran',
  quiet: 'quiet (nothing to report)',
  skipped: 'skipped (the previous run still ran)',
  missed: 'missed (Rudder was not running)',
  timed_out: 'stopped at its timeout',
  failed: 'failed',
  stopped: 'stopped',
};

export interface ScheduleCommandsDeps {
  schedules: Schedules;
  projects: Projects;
}

export class ScheduleCommands {
  constructor(private readonly d: ScheduleCommandsDeps) {}

  /** /schedules */
  list(): string {
    const { schedules, problems } = this.d.schedules.list();
    if (!schedules.length && !problems.length)
      return `No schedules. Add one with /schedule add, or in the config's "schedules".\n${USAGE}`;
    const lines = ['Schedules:', ...schedules.map((s) => scheduleText(s))];
    for (const p of problems) lines.push(`• ${p.name}: left out (${p.why})`);
    return lines.join('\n');
  }

  /** /schedule <verb> <name> [...] */
  async run(args: string, conversationId: string, by: string): Promise<string> {
    const m = /^(\S+)(?:\s+(\S+))?(?:\s+([\s\S]*))?$/.exec(args.trim());
    const [, verb, name, rest = ''] = m ?? [];
    if (!verb || !name) return USAGE;
    const { schedules } = this.d;
    switch (verb.toLowerCase()) {
      case 'run':
        return (await schedules.runNow(name, by)).text;
      case 'pause':
        return schedules.pause(name, by).text;
      case 'resume':
        return schedules.resume(name, by).text;
      case 'add':
      case 'edit':
        return this.put(verb.toLowerCase(), name, rest, conversationId, by);
      case 'remove':
      case 'delete':
        return schedules.remove(name, by).text;
      default:
        return `Unknown /schedule ${verb}.\n${USAGE}`;
    }
  }

  private put(verb: string, name: string, rest: string, conversationId: string, by: string): string {
    const { schedules, projects } = this.d;
    const parts = splitWhenPrompt(rest);
    if (!parts) return `Say when and what: /schedule ${verb} ${name} <when> | <prompt>.\n${USAGE}`;
    const had = schedules.get(name);
    if (verb === 'add' && had) return `There is a schedule ${name} already: /schedule edit ${name} changes it.`;
    if (verb === 'edit' && !had) return `There is no schedule ${name}: /schedule add ${name} makes it.`;
    const base: Partial<ScheduleBody> = had
      ? { ...bodyOf(had) }
      : { deliver: conversationId, project: projects.peek(conversationId).name };
    return schedules.put(name, { ...base, cron: parts.when, prompt: parts.prompt }, by).text;
  }
}

/** "<when> | <prompt>", or "<when>" then the prompt on the next lines. */
function splitWhenPrompt(rest: string): { when: string; prompt: string } | undefined {
  const bar = rest.indexOf('|');
  const nl = rest.indexOf('\n');
  const at = bar >= 0 && (nl < 0 || bar < nl) ? bar : nl;
  if (at < 0) return undefined;
  const when = rest.slice(0, at).trim();
  const prompt = rest.slice(at + 1).trim();
  return when && prompt ? { when, prompt } : undefined;
}

/** A kept schedule's definition as it was made, to change only its line and prompt. */
function bodyOf(s: ScheduleView): ScheduleBody {
  return {
    cron: s.line,
    prompt: s.prompt,
    timezone: s.timezone,
    session: s.session,
    quiet: s.quiet,
    timeoutMinutes: s.timeoutMinutes,
    catchUpMinutes: s.catchUpMinutes,
    enabled: s.enabled,
    ...(s.project ? { project: s.project } : {}),
    ...(s.deliver ? { deliver: s.deliver } : {}),
  };
}

function runText(r: RunView, timezone: string): string {
  const cost = r.costUsd === null ? '' : `, $${r.costUsd.toFixed(2)}`;
  const count = r.outcome === 'missed' && (r.missedCount ?? 1) > 1 ? ` ×${r.missedCount}` : '';
  const why = r.reason ? ` (${r.reason})` : '';
  return `${OUTCOME[r.outcome]}${count} ${formatLocal(r.slot, timezone)}${cost}${why}`;
}

function scheduleText(s: ScheduleView): string {
  const flags = [
    s.paused ? 'paused' : '',
    s.enabled ? '' : 'disabled',
    s.quiet ? 'quiet' : '',
    s.origin === 'kept' ? 'added here' : '',
  ].filter(Boolean);
  const head = `• ${s.name}${flags.length ? ` (${flags.join(', ')})` : ''}: ${s.cron} (${s.timezone})`;
  const lines = [head, `  next: ${s.nextText ?? 'none'}`];
  if (s.last) lines.push(`  last: ${runText(s.last, s.timezone)}`);
  if (s.problem && s.problem.slot !== s.last?.slot) lines.push(`  ⚠ ${runText(s.problem, s.timezone)}`);
  return lines.join('\n');
}
