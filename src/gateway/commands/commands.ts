/**
 * Commands, accepted from owners only (intake checks) and never passed to the agent:
 * /stop (and a bare "stop"), /clear (/new), /model <name>, /queue [mode], /status, /retry,
 * /allow and /deny (or the option number) for a pending permission request, /project [name],
 * /sessions, /resume <n|id> [--force], /worktree [remove [--force]], the review of the worktree
 * (/diff, /commit <message>, /merge, /push, /pr, /discard: review.ts), /budget [usd], /nodes, /help.
 */
import type { AgentPool } from '../../agents/pool.js';
import type { LiveConfig } from '../../config/load.js';
import { queueModeSchema } from '../../config/schema.js';
import type { NodeStatus } from '../../nodes/front/status.js';
import { nodesText } from '../../nodes/front/status.js';
import type { Query, QueryAnswer } from '../../nodes/wire.js';
import type { Logger } from '../../ops/logger.js';
import { ProjectCommands } from '../../projects/commands.js';
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
  log: Logger;
  /** The nodes (nodes.*): /nodes, and /sessions and /resume of a project on one. */
  nodes?: { status(): NodeStatus[]; query(node: string, q: Query): Promise<QueryAnswer> };
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

export class Commands {
  constructor(private readonly d: CommandsDeps) {}

  async run(cmd: ParsedCommand, call: CommandCall): Promise<CommandOutcome> {
    const { conversationId } = call;
    switch (cmd.name) {
      case 'stop': {
        const { reply, dropped } = await this.d.stopper.stop(conversationId, call.sentAt);
        return { reply, stopped: dropped };
      }
      case 'clear':
      case 'new': {
        const lane = this.d.conversations.lane(conversationId);
        const { interrupted, dropped } = await lane.stop('cleared by /clear', call.sentAt);
        await this.forgetSession(conversationId);
        lane.pump();
        // Like /stop, it says what it stopped: the stopped messages get no "⏹ stopped" message of their own.
        const stopped = [
          interrupted ? 'The running turn was stopped.' : '',
          dropped.length ? `${dropped.length} waiting message(s) will not run.` : '',
        ].filter(Boolean);
        return {
          reply: ['🆕 Started a fresh session. The agent will not remember this conversation.', ...stopped].join(' '),
          stopped: dropped,
        };
      }
      case 'model':
        return { reply: await this.model(conversationId, cmd.args) };
      case 'queue':
        return { reply: this.queue(conversationId, cmd.args) };
      case 'status':
        return { reply: await this.d.statusText.of(conversationId, this.projectCommands(conversationId)) };
      case 'project':
      case 'projects':
        return { reply: await this.projectCommands(conversationId).project(cmd.args) };
      case 'sessions':
        return { reply: await this.projectCommands(conversationId).sessions({ group: call.group ?? false }) };
      case 'resume':
        return { reply: await this.projectCommands(conversationId).resume(cmd.args) };
      case 'worktree':
        return { reply: await this.projectCommands(conversationId).worktree(cmd.args) };
      case 'budget':
        return {
          reply: budgetCommand(
            { budgets: this.d.budgets, release: (p) => this.d.conversations.releaseBudget(p) },
            conversationId,
            cmd.args,
            call.by,
          ),
        };
      case 'nodes':
        return {
          reply: this.d.nodes ? nodesText(this.d.nodes.status()) : 'This Rudder has no nodes section: one machine.',
        };
      case 'retry': {
        const n = this.d.conversations.lane(conversationId).resume('the person asked with /retry');
        const agent = this.d.conversations.settings(conversationId).agent;
        return {
          reply: n ? `Running ${n} held message(s) on ${agent} again.` : 'No messages are held by a rate limit.',
        };
      }
      case 'allow':
      case 'deny':
        return {
          reply: this.answerPermission(conversationId, cmd.name, call.by) ?? 'No permission request is waiting.',
        };
      case 'diff':
        return this.d.review.diff(conversationId);
      case 'commit':
        return this.d.review.commit(conversationId, cmd.args, call.by);
      case 'merge':
        return this.d.review.merge(conversationId, call.by);
      case 'push':
        return this.d.review.push(conversationId, cmd.args, call.by);
      case 'pr':
        return this.d.review.pullRequest(conversationId, cmd.args, call.by);
      case 'discard':
        return this.d.review.discard(conversationId, cmd.args, call);
      case 'help':
      case 'start':
        return { reply: HELP };
      default:
        return { reply: `Unknown command /${cmd.name}. ${HELP}` };
    }
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
    const lane = this.d.conversations.lane(conversationId);
    const nodes = this.d.nodes;
    return new ProjectCommands({
      conversationId,
      projects: this.d.projects,
      store: this.d.store,
      busy: () => lane.busy(),
      release: (reason) => this.d.pool.release(conversationId, reason),
      ownPid: () => this.d.pool.peek(conversationId)?.pid(),
      releaseOther: (id, reason) => this.d.pool.release(id, reason),
      busyOther: (id) => this.d.conversations.lane(id).busy(),
      tell: (id, text) => this.d.replies.notice(id, text, null),
      ...(nodes ? { askNode: (node: string, q: Query) => nodes.query(node, q) } : {}),
    });
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
    if (live?.clearContext && live.state() !== 'stopped') {
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
    if (live?.setModel && live.state() !== 'stopped') {
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
