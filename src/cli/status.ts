/**
 * `rudder status [--json]`: GET /api/status, for humans or raw. Sessions and queues are named by
 * their conversation's title beside the id: a title from the report itself when it carries one,
 * else a web conversation's from GET /api/conversations.
 */
import type { Command } from 'commander';
import type { StatusReport } from '../http/wire.js';
import { stripControlSequences } from '../security/control-sequences.js';
import { removeInvisible } from '../security/sanitise.js';
import { call, type Endpoint, endpoint } from './client.js';

const WEB_PREFIX = 'web:';
const TITLE_CHARS = 40;

const mb = (b: number | null) => (b === null ? '-' : `${Math.round(b / 1024 / 1024)} MB`);
const usd = (v: number) => `$${v < 0.01 && v > 0 ? v.toFixed(4) : v.toFixed(2)}`;
/** Each reason a queue can be paused for, as `rudder status` says it (a new reason must be named here). */
const PAUSED: Record<NonNullable<StatusReport['queues'][number]['pausedFor']>, string> = {
  'rate-limit': 'rate limited',
  'agent-terminal': 'waiting for the agent terminal',
  budget: 'daily budget spent',
  'agent-unreachable': 'its node cannot be reached',
  'terminal-open': 'its session is open in a terminal',
};

/** "Cost today: $0.05 in 4 turns; main $0.05 of $5.00" (a project without a budget shows only what it spent). */
function costLine(s: StatusReport): string {
  const c = s.cost;
  if (!c) return 'Cost today: not reported';
  const unknown = c.today.turnsWithoutCost ? ` (${c.today.turnsWithoutCost} without a reported cost)` : '';
  const projects = c.projects
    .filter((p) => p.turns || p.budgetUsd !== null)
    .map(
      (p) =>
        `${p.project} ${usd(p.usd)}${p.budgetUsd === null ? '' : ` of ${usd(p.budgetUsd)}`}${p.over ? ' (spent)' : ''}`,
    );
  const turns = `${c.today.turns} turn${c.today.turns === 1 ? '' : 's'}`;
  return `Cost today (${c.day}): ${usd(c.today.usd)} in ${turns}${unknown}${
    projects.length ? `; ${projects.join(', ')}` : ''
  }`;
}

export function register(program: Command): void {
  program
    .command('status')
    .description(
      'what the running gateway is doing: the agent binaries, sessions, queues, owed replies, channels, steering',
    )
    .option('--json', 'print the report as JSON (the body of GET /api/status)')
    .addHelpText(
      'after',
      "\nThe gateway is found through RUDDER_URL and RUDDER_TOKEN, else the config's web address and the " +
        'token in the data dir.',
    )
    .action(async (opts: { json?: boolean }) => {
      process.exitCode = await status(opts);
    });
}

/**
 * A line per agent binary the conversations run on (its version, or what is wrong and the fix), then one per agent
 * process conversations share, with the last line of its stderr.
 */
function agentLines(s: StatusReport): string[] {
  const checks = Object.values(s.agent?.binaries ?? {});
  if (checks.length === 0) return [`Agent: not checked yet (backend ${s.agent?.backend ?? '?'})`];
  const binaries = checks.map((c) =>
    c.ok
      ? `${c.agent}: ${c.version} at ${c.path} (from ${c.source}); backend ${s.agent.backend}`
      : `${c.agent}: ✘ ${c.problem} (fix: ${c.fix})`,
  );
  const shared = (s.agent?.shared ?? []).map((p) => {
    const last = p.stderrTail.filter((l) => l.trim()).at(-1);
    const uses = `${p.conversations} conversation(s), ${p.sessions} session(s)`;
    return `  ${p.agent} process ${p.pid}: ${uses}${last ? `; stderr: ${last.slice(0, 160)}` : ''}`;
  });
  return [...binaries, ...shared];
}

function channelsLine(s: StatusReport): string {
  return s.channels.map((c) => `${c.name} ${c.state}${c.detail ? ` (${c.detail})` : ''}`).join(', ') || 'none';
}

/** Titles by conversation id (web:<key>), from the web channel's list; none when it cannot be read. */
async function webTitles(ep: Endpoint): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  for (const q of ['', '?archived=1']) {
    try {
      const r = await call<{ conversations: Array<{ id: string; title: string | null }> }>(
        ep,
        'GET',
        `/api/conversations${q}`,
      );
      for (const c of r.conversations) if (c.title) titles.set(`${WEB_PREFIX}${c.id}`, c.title);
    } catch {
      // Titles are a help for reading; the report stands without them.
    }
  }
  return titles;
}

/** A title as one short line that cannot move the cursor or hide text on the terminal. */
function shown(title: string): string {
  const flat = removeInvisible(stripControlSequences(title))
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > TITLE_CHARS ? `${flat.slice(0, TITLE_CHARS - 1)}…` : flat;
}

export async function status(opts: { json?: boolean }): Promise<number> {
  const ep = endpoint();
  const s = await call<StatusReport>(ep, 'GET', '/api/status');
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return 0;
  }
  const titles = s.sessions.length || s.queues.length ? await webTitles(ep) : new Map<string, string>();
  const named: Named = (x) => {
    const title = x.title ?? titles.get(x.conversationId);
    return title ? `${x.conversationId}  "${shown(title)}"` : x.conversationId;
  };
  const lines = [
    ...overview(s),
    ...sessionLines(s, named),
    ...nodeLines(s),
    ...queueLines(s, named),
    ...scheduleLines(s),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

type Named = (x: { conversationId: string; title?: string | null }) => string;

/** The gateway, its agents, steering, channels, what is owed, today's cost, the messages by state. */
function overview(s: StatusReport): string[] {
  return [
    `Rudder ${s.version}, up ${s.uptimeSeconds}s, ${mb(s.gatewayRssBytes)}`,
    ...agentLines(s),
    `Steering: ${s.steering.on ? 'on' : `off (${s.steering.reason})`}; default mode ${s.steering.mode}; ` +
      `agent processes ${s.steering.liveSessions}, ${s.steering.warm} idle; ` +
      `maxLive ${s.steering.maxLive} (${s.steering.maxLiveWhy})`,
    `Spare process: ${s.steering.spareProcess ? 'on' : 'off'} (${s.steering.spareProcessWhy})`,
    `Channels: ${channelsLine(s)}`,
    ...s.channels
      .filter((c) => !c.started)
      .map((c) => `Not started: ${c.name} (${c.error ?? c.state}${c.retryAt ? `; next try ${c.retryAt}` : ''})`),
    `Replies owed: ${s.owedReplies}`,
    costLine(s),
    `Messages: ${
      Object.entries(s.messages)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }`,
  ];
}

function sessionLines(s: StatusReport, named: Named): string[] {
  if (!s.sessions.length) return [];
  return [
    'Live sessions:',
    ...s.sessions.map(
      (x) =>
        `  ${named(x)}  ${x.backend}  pid ${x.pid ?? '-'}  ${x.state}  idle ${x.idleSeconds}s ` +
        ` ${mb(x.rssBytes)}  steered ${x.steered}`,
    ),
  ];
}

function nodeLines(s: StatusReport): string[] {
  if (!s.nodes) return [];
  const lines = [s.nodes.length ? 'Nodes:' : 'Nodes: none added (rudder node add <name>)'];
  for (const n of s.nodes) {
    const seen = n.lastSeen ? `last seen ${n.lastSeen}` : 'never seen';
    const live = n.sessions.filter((x) => x.state !== 'stopped').length;
    const state = n.state === 'lost' ? `unreachable (${seen})` : n.state;
    lines.push(
      `  ${n.name}  ${state}  projects ${n.projects.join(', ') || '-'}  sessions ${live}` +
        `${n.rssBytes ? `  ${mb(n.rssBytes)}` : ''}`,
    );
  }
  return lines;
}

function queueLines(s: StatusReport, named: Named): string[] {
  if (!s.queues.length) return [];
  return [
    'Queues:',
    ...s.queues.map(
      (q) =>
        `  ${named(q)}  waiting ${q.depth}  in flight ${q.inFlight}${
          q.pausedUntil
            ? `  ${PAUSED[q.pausedFor ?? 'rate-limit'] ?? 'paused'} until ${q.pausedUntil}`
            : q.pausedFor
              ? `  ${PAUSED[q.pausedFor] ?? 'paused'}`
              : ''
        }`,
    ),
  ];
}

/** Each schedule's next run, and its last run or newest problem when it did not simply run. */
function scheduleLines(s: StatusReport): string[] {
  if (!s.schedules?.length) return [];
  return [
    'Schedules:',
    ...s.schedules.map((x) => {
      const next = x.paused ? 'paused' : x.enabled ? `next ${x.next ?? 'never'}` : 'disabled';
      const last = x.last ? `  last ${x.last.outcome} ${x.last.slot}` : '';
      const problem = x.problem && x.problem.slot !== x.last?.slot ? `  ⚠ ${x.problem.outcome} ${x.problem.slot}` : '';
      return `  ${x.name}  ${x.cron} (${x.timezone})  ${next}${last}${problem}`;
    }),
  ];
}
