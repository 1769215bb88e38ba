/**
 * Commands, accepted from owners only (intake checks) and never passed to the agent:
 * /stop (and a bare "stop"), /clear (/new), /model <name>, /queue [mode], /status, /retry,
 * /allow and /deny (or the option number) for a pending permission request, /project [name],
 * /sessions, /resume <n|id> [--force], /attach <n>, /detach, /worktree [remove [--force]], the review of
 * the worktree (/diff, /commit <message>, /merge, /push, /pr, /discard: review.ts), /budget [usd], /nodes,
 * /schedules and /schedule <verb> <name> (schedules.ts), /login (how to give claude credentials: it
 * logs in on the machine), /help.
 */
import { LOGIN_FIX } from '../../agents/claude/api-failure.js';
import type { AgentPool } from '../../agents/pool.js';
import type { LiveConfig } from '../../config/load.js';
import { queueModeSchema } from '../../config/schema.js';
import type { NodeStatus } from '../../nodes/front/status.js';
import { nodesText } from '../../nodes/front/status.js';
import type { Query, QueryAnswer } from '../../nodes/wire.js';
import type { Logger } from '../../ops/logger.js';
import { type ProjectCommandDeps, ProjectCommands } from '../../projects/commands.js';
import { projectAgent } from '../../projects/projects.js';
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import type { MessageRow } from '../../store/types.js';
import type { Budgets } from '../budget/budgets.js';
import { budgetCommand } from '../budget/command.js';
import type { Conversations } from '../conversations/conversations.js';
import type { ChatPrompts } from '../permissions/chat-prompts.js';
import type { PermissionDesk } from '../permissions/desk.js';
import { plainApproval, refusal } from '../permissions/options.js';
import type { Replies } from '../replies/replies.js';
import type { StatusText } from '../status/conversation-text.js';
import { HELP } from './help.js';
import type { ParsedCommand } from './parse.js';
import type { ReviewCommands } from './review.js';
import type { ScheduleCommands } from './schedules.js';
import type { Stopper } from './stop.js';

export interface CommandsDeps {
  config: LiveConfig;
  store: Store;
  pool: AgentPool;
  conversations: Conversations;
  projects: Projects;
  desk: PermissionDesk;
  prompts: ChatPrompts;
  stopper: Stopper;
  statusText: StatusText;
  replies: Replies;
  review: ReviewCommands;
  budgets: Budgets;
  /** /schedules and /schedule run|pause|resume|add|edit|remove (schedules.ts). */
  schedules: ScheduleCommands;
  log: Logger;
  /** The nodes (nodes.*): /nodes, and /sessions and /resume of a project on one. */
  nodes?: { status(): NodeStatus[]; query(node: string, q: Query, timeoutMs?: number): Promise<QueryAnswer> };
  /** A project's past sessions when its agent lists them itself (Codex's threads): /sessions and /resume. */
  history?: ProjectCommandDeps['history'];
}

/** Who runs a command, where and when: messages sent before a /stop or /clear are ended by it. */
export interface CommandCall {
  conversationId: string;
  sentAt: number;
  /** Who sent it (an answer to a permission request records it). */
  by: string;
  /** The command's own message (a confirmation question answers it). */
  messageId: string;
  /** Sent in a group chat: every member reads the answer. */
  group?: boolean;
}

export interface CommandOutcome {
  /** Text sent back to the person; empty when something else answers (a question with buttons). */
  reply: string;
  /** Further messages, sent after the reply in order (a long /diff). */
  more?: string[];
  /** Messages that ended as stopped (their acks show ⏹). */
  stopped?: MessageRow[];
}

const NONE_WAITING = 'No permission request is waiting.';
/** /login: claude logs in on the machine, never through a chat. */
const LOGIN_TEXT = `Rudder cannot log claude in from here. ${LOGIN_FIX} Then send your message again.`;

/** One command: what it answers, given its arguments and who runs it where. */
type Handler = (cmd: ParsedCommand, call: CommandCall) => CommandOutcome | Promise<CommandOutcome>;

export class Commands {
  /** Every command, by name (help.ts says what each does). */
  private readonly table: ReadonlyMap<string, Handler>;

  constructor(private readonly d: CommandsDeps) {
    const reply = async (text: Promise<string>) => ({ reply: await text });
    const project = (id: string) => this.projectCommands(id);
    const help: Handler = () => ({ reply: HELP });
    this.table = new Map<string, Handler>([
      ['stop', (_, c) => this.stop(c)],
      ['clear', (_, c) => this.clear(c)],
      ['new', (_, c) => this.clear(c)],
      ['model', (cmd, c) => reply(this.model(c.conversationId, cmd.args))],
      ['queue', (cmd, c) => ({ reply: this.queue(c.conversationId, cmd.args) })],
      ['status', (_, c) => reply(d.statusText.of(c.conversationId, project(c.conversationId)))],
      ['project', (cmd, c) => reply(project(c.conversationId).project(cmd.args))],
      ['projects', (cmd, c) => reply(project(c.conversationId).project(cmd.args))],
      ['sessions', (_, c) => reply(project(c.conversationId).sessions({ group: c.group ?? false }))],
      ['resume', (cmd, c) => reply(project(c.conversationId).resume(cmd.args))],
      ['attach', (cmd, c) => reply(project(c.conversationId).attach(cmd.args))],
      ['detach', (_, c) => reply(project(c.conversationId).detach())],
      ['worktree', (cmd, c) => reply(project(c.conversationId).worktree(cmd.args))],
      ['budget', (cmd, c) => ({ reply: this.budget(c, cmd.args) })],
      ['nodes', () => ({ reply: this.nodes() })],
      ['schedules', () => ({ reply: d.schedules.list() })],
      ['schedule', (cmd, c) => reply(d.schedules.run(cmd.args, c.conversationId, c.by))],
      ['retry', (_, c) => ({ reply: this.retry(c.conversationId) })],
      ['allow', (_, c) => ({ reply: this.answerPermission(c.conversationId, 'allow', c.by) ?? NONE_WAITING })],
      ['deny', (_, c) => ({ reply: this.answerPermission(c.conversationId, 'deny', c.by) ?? NONE_WAITING })],
      ['diff', (_, c) => d.review.diff(c.conversationId)],
      ['commit', (cmd, c) => d.review.commit(c.conversationId, cmd.args, c.by)],
      ['merge', (_, c) => d.review.merge(c.conversationId, c.by)],
      ['push', (cmd, c) => d.review.push(c.conversationId, cmd.args, c.by)],
      ['pr', (cmd, c) => d.review.pullRequest(c.conversationId, cmd.args, c.by)],
      ['discard', (cmd, c) => d.review.discard(c.conversationId, cmd.args, c)],
      ['login', () => ({ reply: LOGIN_TEXT })],
      ['help', help],
      ['start', help],
    ]);
  }

  async run(cmd: ParsedCommand, call: CommandCall): Promise<CommandOutcome> {
    const handler = this.table.get(cmd.name);
    return handler ? handler(cmd, call) : { reply: `Unknown command /${cmd.name}. ${HELP}` };
  }

  private async stop(call: CommandCall): Promise<CommandOutcome> {
    const { reply, dropped } = await this.d.stopper.stop(call.conversationId, call.sentAt);
    return { reply, stopped: dropped };
  }

  /** /clear and /new: like /stop, it says what it stopped, so the stopped messages get no "⏹ stopped" of their own. */
  private async clear(call: CommandCall): Promise<CommandOutcome> {
    const lane = this.d.conversations.lane(call.conversationId);
    const { interrupted, dropped } = await lane.stop('cleared by /clear', call.sentAt);
    await this.forgetSession(call.conversationId);
    lane.pump();
    const stopped = [
      interrupted ? 'The running turn was stopped.' : '',
      dropped.length ? `${dropped.length} waiting message(s) will not run.` : '',
    ].filter(Boolean);
    return {
      reply: ['🆕 Started a fresh session. The agent will not remember this conversation.', ...stopped].join(' '),
      stopped: dropped,
    };
  }

  private budget(call: CommandCall, args: string): string {
    const budgets = { budgets: this.d.budgets, release: (p: string) => this.d.conversations.releaseBudget(p) };
    return budgetCommand(budgets, call.conversationId, args, call.by);
  }

  private nodes(): string {
    return this.d.nodes ? nodesText(this.d.nodes.status()) : 'This Rudder has no nodes section: one machine.';
  }

  private retry(conversationId: string): string {
    const n = this.d.conversations.lane(conversationId).resume('the person asked with /retry');
    const agent = this.d.conversations.settings(conversationId).agent;
    return n ? `Running ${n} held message(s) on ${agent} again.` : 'No messages are held by a rate limit.';
  }

  /** 'allow', 'deny', or an option number (1-based); the reply text, or undefined when none is waiting. */
  answerPermission(conversationId: string, choice: 'allow' | 'deny' | number, by: string): string | undefined {
    const open = this.d.desk.pending(conversationId);
    if (!open) return undefined;
    const options = open.request.options;
    const option =
      typeof choice === 'number' ? options[choice - 1] : choice === 'allow' ? plainApproval(options) : refusal(options);
    if (!option) return `Choose one of: ${options.map((o, i) => `${i + 1}. ${o.label}`).join(', ')}`;
    const via = this.d.prompts.surfaceOf(conversationId);
    const r = this.d.desk.answer(conversationId, open.request.requestId, option.id, by, via);
    return r.ok ? `Answered: ${option.label}.` : r.reason === 'refused' ? r.text : 'That request is no longer waiting.';
  }

  /** /project, /sessions, /resume, /worktree and the project lines of /status, for one conversation. */
  private projectCommands(conversationId: string): ProjectCommands {
    return new ProjectCommands(this.projectDeps(conversationId));
  }

  /** What the project commands of one conversation use; the page's "Running now" attaches with it as /attach does. */
  projectDeps(conversationId: string): ProjectCommandDeps {
    const lane = this.d.conversations.lane(conversationId);
    const nodes = this.d.nodes;
    return {
      conversationId,
      projects: this.d.projects,
      store: this.d.store,
      busy: () => lane.busy(),
      release: (reason) => this.d.pool.release(conversationId, reason),
      ownPid: () => this.d.pool.peek(conversationId)?.pid(),
      releaseOther: (id, reason) => this.d.pool.release(id, reason),
      busyOther: (id) => this.d.conversations.lane(id).busy(),
      tell: (id, text) => this.d.replies.notice(id, text, null),
      tmuxServers: () => this.d.config.current().agent.tmux.discover,
      follow: () => lane.watchSession(),
      ...(this.d.history ? { history: this.d.history } : {}),
      ...(nodes ? { askNode: (node: string, q: Query, ms?: number) => nodes.query(node, q, ms) } : {}),
    };
  }

  private async model(conversationId: string, args: string): Promise<string> {
    if (!args)
      return 'Usage: /model <name>, for example /model sonnet. /model default goes back to the configured model.';
    const model = args === 'default' ? null : args.split(/\s+/)[0]!;
    this.d.store.setModel(conversationId, model);
    await this.releaseForModel(conversationId, `model changed to ${model ?? 'the default'}`);
    return `Model set to ${model ?? 'the configured default'}; it applies from the next turn.`;
  }

  private queue(conversationId: string, args: string): string {
    const { conversations, store } = this.d;
    if (!args)
      return (
        `Queue mode: ${conversations.effectiveMode(conversationId)}. Modes: steer, followup, collect, interrupt. ` +
        '/queue default goes back to the configured one.'
      );
    if (args === 'default') {
      store.setQueueMode(conversationId, null);
      return `Queue mode back to the default: ${conversations.effectiveMode(conversationId)}.`;
    }
    const mode = queueModeSchema.safeParse(args.toLowerCase());
    if (!mode.success) return `Unknown queue mode "${args}". Use steer, followup, collect or interrupt.`;
    store.setQueueMode(conversationId, mode.data);
    return `Queue mode set to ${mode.data}.`;
  }

  /** /clear: a backend with its own /clear (the TUI) clears in place and persists its new session id. */
  private async forgetSession(conversationId: string): Promise<void> {
    const { store, pool, log } = this.d;
    store.setSessionId(conversationId, null);
    const live = pool.peek(conversationId);
    if (live?.capabilities.clearContext && live.state() !== 'stopped') {
      try {
        return await live.clearContext();
      } catch (err) {
        log.warn(
          { conversationId, err: (err as Error).message },
          "the agent's own /clear failed: releasing the session instead",
        );
      }
    }
    await pool.release(conversationId, 'session cleared by /clear');
    store.setSessionId(conversationId, null);
  }

  /** /model: a backend with its own /model (the TUI) switches in place, after the running turn. */
  private async releaseForModel(conversationId: string, reason: string): Promise<void> {
    const { store, pool, log, config, projects } = this.d;
    const lane = this.d.conversations.lane(conversationId);
    const live = pool.peek(conversationId);
    if (live?.capabilities.setModel && live.state() !== 'stopped') {
      const model =
        store.conversation(conversationId)?.model ??
        projectAgent(config.current().agent, projects.peek(conversationId)).model;
      void live.setModel(model ?? undefined).catch((err: Error) => {
        log.warn({ conversationId, err: err.message }, "the agent's own /model failed: releasing the session instead");
        void lane.releaseWhenIdle(reason);
      });
      return;
    }
    await lane.releaseWhenIdle(reason);
  }
}
