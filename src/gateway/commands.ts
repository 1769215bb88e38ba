/**
 * Commands, accepted from authorised senders only and never passed to the agent:
 * /stop (and a bare "stop"), /clear (/new), /model <name>, /queue [mode], /status, /retry,
 * /allow and /deny (or the option number) for a pending permission request, /help.
 */
import { queueModeSchema, type QueueMode } from '../config/schema.js';
import type { MessageRow } from '../store/types.js';
import type { Lane } from './lane.js';

export interface ParsedCommand {
  name: string;
  args: string;
}

const COMMAND = /^\/([a-z][a-z0-9_-]*)(?:@\S+)?(?:\s+([\s\S]*))?$/i;
const BARE_STOP = /^\s*stop[.!]*\s*$/i;

/** A command, or undefined for ordinary text (a path such as "/usr/bin is slow" is text). */
export function parseCommand(text: string): ParsedCommand | undefined {
  if (BARE_STOP.test(text)) return { name: 'stop', args: '' };
  const m = COMMAND.exec(text.trim());
  if (!m) return undefined;
  return { name: m[1]!.toLowerCase(), args: (m[2] ?? '').trim() };
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
  statusText(): string;
  /** What the running turn is about and where it is (for the stop notice), when one runs. */
  describeRunning?(): string | undefined;
  answerPermission(choice: 'allow' | 'deny' | string): string | undefined;
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
      const parts = [interrupted ? `⏹ Stopped the running turn${running ? ` (${running})` : ''}.` : '⏹ Nothing was running.'];
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
      if (!cmd.args) return { reply: 'Usage: /model <name>, for example /model sonnet. /model default goes back to the configured model.' };
      const model = cmd.args === 'default' ? null : cmd.args.split(/\s+/)[0]!;
      ctx.setModel(model);
      await ctx.releaseSession(`model changed to ${model ?? 'the default'}`);
      return { reply: `Model set to ${model ?? 'the configured default'}; it applies from the next turn.` };
    }
    case 'queue': {
      if (!cmd.args) return { reply: `Queue mode: ${ctx.effectiveMode()}. Modes: steer, followup, collect, interrupt. /queue default goes back to the configured one.` };
      if (cmd.args === 'default') {
        ctx.setQueueMode(null);
        return { reply: `Queue mode back to the default: ${ctx.effectiveMode()}.` };
      }
      const mode = queueModeSchema.safeParse(cmd.args.toLowerCase());
      if (!mode.success) return { reply: `Unknown queue mode "${cmd.args}". Use steer, followup, collect or interrupt.` };
      ctx.setQueueMode(mode.data);
      return { reply: `Queue mode set to ${mode.data}.` };
    }
    case 'status':
      return { reply: ctx.statusText() };
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
