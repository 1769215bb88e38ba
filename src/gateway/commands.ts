/**
 * Commands, accepted from authorised senders only and never passed to the agent:
 * /stop (and a bare "stop"), /clear (/new), /model <name>, /queue [mode], /status, /retry,
 * /allow and /deny (or the option number) for a pending permission request, /project [name],
 * /sessions, /resume <n|id> [--force], /worktree [remove [--force]], /help.
 * parseInput() is the one place that decides what a message is.
 */
import { type QueueMode, queueModeSchema } from '../config/schema.js';
import type { ProjectCommands } from '../projects/commands.js';
import { sanitiseText } from '../security/sanitise.js';
import type { MessageRow } from '../store/types.js';
import type { Lane } from './lane.js';

export interface ParsedCommand {
  name: string;
  args: string;
}

/**
 * What a message is, decided here and nowhere else: a command, an answer to a pending permission
 * request (its option number, 1-based), or text for the agent. Who may run it is route()'s question.
 */
export type ParsedInput =
  | { kind: 'command'; command: ParsedCommand }
  | { kind: 'permission-answer'; option: number }
  | { kind: 'text' };

const COMMAND = /^\/([a-z][a-z0-9_-]*)(?:@\S+)?(?:\s+([\s\S]*))?$/i;
const BARE_STOP = /^stop[.!]*$/i;
const OPTION_NUMBER = /^\d{1,2}$/;

/**
 * Classifies a message as the person sees it: invisible characters and control sequences do not
 * count, so "/st\u200bop" is the command it looks like. A path such as "/usr/bin is slow" is text.
 * A bare number is a permission answer only while a request is pending.
 */
export function parseInput(text: string, permissionPending: boolean): ParsedInput {
  const t = sanitiseText(text).trim();
  if (BARE_STOP.test(t)) return { kind: 'command', command: { name: 'stop', args: '' } };
  const m = COMMAND.exec(t);
  if (m) return { kind: 'command', command: { name: m[1]!.toLowerCase(), args: (m[2] ?? '').trim() } };
  if (permissionPending && OPTION_NUMBER.test(t)) return { kind: 'permission-answer', option: Number(t) };
  return { kind: 'text' };
}

/** A command, or undefined for anything else. */
export function parseCommand(text: string): ParsedCommand | undefined {
  const p = parseInput(text, false);
  return p.kind === 'command' ? p.command : undefined;
}

export const HELP = [
  'Commands:',
  '/stop (or just "stop") — stop the running turn and clear the queue; the session is kept',
  '/clear or /new — end the session and start a fresh one',
  '/model <name> — switch model (from the next turn)',
  '/queue [steer|followup|collect|interrupt] — show or set how messages sent mid-turn are handled',
  '/status — what this conversation is doing',
  '/retry — run messages held by a rate limit now',
  '/allow, /deny — answer a pending permission request (or reply with its option number)',
  '/project [name] — list the projects, or move this conversation to one',
  '/sessions — the Claude Code sessions of this project, also those started in a terminal',
  '/resume <n|id> [--force] — continue one of them here from the next message',
  "/worktree [remove [--force]] — this conversation's git worktree: its status, or remove it",
  '/help — this list',
].join('\n');

export interface CommandContext {
  lane: Lane;
  /** When the command was sent: messages sent before it are ended by /stop and /clear. */
  sentAt: number;
  setModel(model: string | null): void;
  setQueueMode(mode: QueueMode | null): void;
  effectiveMode(): QueueMode;
  forgetSession(): Promise<void>;
  releaseSession(reason: string): Promise<void>;
  statusText(): Promise<string>;
  projects: ProjectCommands;
  /** What the running turn is about and where it is (for the stop notice), when one runs. */
  describeRunning?(): string | undefined;
  /** 'allow', 'deny', or an option number (1-based); the reply text, or undefined when none is waiting. */
  answerPermission(choice: 'allow' | 'deny' | number): string | undefined;
}

export interface CommandOutcome {
  /** Text sent back to the person. */
  reply: string;
  /** Messages that ended as stopped (their acks show ⏹). */
  stopped?: MessageRow[];
}

export async function runCommand(cmd: ParsedCommand, ctx: CommandContext): Promise<CommandOutcome> {
  switch (cmd.name) {
    case 'stop': {
      const running = ctx.describeRunning?.();
      const { interrupted, dropped } = await ctx.lane.stop('stopped by /stop', ctx.sentAt);
      ctx.lane.pump();
      const parts = [
        interrupted ? `⏹ Stopped the running turn${running ? ` (${running})` : ''}.` : '⏹ Nothing was running.',
      ];
      if (dropped.length) parts.push(`${dropped.length} waiting message(s) will not run.`);
      parts.push('The session is kept.');
      return { reply: parts.join(' '), stopped: dropped };
    }
    case 'clear':
    case 'new': {
      const { dropped } = await ctx.lane.stop('cleared by /clear', ctx.sentAt);
      await ctx.forgetSession();
      ctx.lane.pump();
      return { reply: '🆕 Started a fresh session. The agent will not remember this conversation.', stopped: dropped };
    }
    case 'model': {
      if (!cmd.args)
        return {
          reply: 'Usage: /model <name>, for example /model sonnet. /model default goes back to the configured model.',
        };
      const model = cmd.args === 'default' ? null : cmd.args.split(/\s+/)[0]!;
      ctx.setModel(model);
      await ctx.releaseSession(`model changed to ${model ?? 'the default'}`);
      return { reply: `Model set to ${model ?? 'the configured default'}; it applies from the next turn.` };
    }
    case 'queue': {
      if (!cmd.args)
        return {
          reply:
            `Queue mode: ${ctx.effectiveMode()}. Modes: steer, followup, collect, interrupt. /queue ` +
            `default goes back to the configured one.`,
        };
      if (cmd.args === 'default') {
        ctx.setQueueMode(null);
        return { reply: `Queue mode back to the default: ${ctx.effectiveMode()}.` };
      }
      const mode = queueModeSchema.safeParse(cmd.args.toLowerCase());
      if (!mode.success)
        return { reply: `Unknown queue mode "${cmd.args}". Use steer, followup, collect or interrupt.` };
      ctx.setQueueMode(mode.data);
      return { reply: `Queue mode set to ${mode.data}.` };
    }
    case 'status':
      return { reply: await ctx.statusText() };
    case 'project':
    case 'projects':
      return { reply: await ctx.projects.project(cmd.args) };
    case 'sessions':
      return { reply: await ctx.projects.sessions() };
    case 'resume':
      return { reply: await ctx.projects.resume(cmd.args) };
    case 'worktree':
      return { reply: await ctx.projects.worktree(cmd.args) };
    case 'retry': {
      const n = ctx.lane.resume('the person asked with /retry');
      return { reply: n ? `Running ${n} held message(s) on Claude again.` : 'No messages are held by a rate limit.' };
    }
    case 'allow':
    case 'deny':
      return { reply: ctx.answerPermission(cmd.name) ?? 'No permission request is waiting.' };
    case 'help':
    case 'start':
      return { reply: HELP };
    default:
      return { reply: `Unknown command /${cmd.name}. ${HELP}` };
  }
}
