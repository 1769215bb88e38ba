/**
 * /status for one conversation, as text: its session, model, queue, steering, warm processes, project, what was
 * spent today (here, in its project, in all) against the project's budget, and a hold.
 */
import type { SessionRegistry } from '../../agents/registry.js';
import type { LiveConfig } from '../../config/load.js';
import type { ProjectCommands } from '../../projects/commands.js';
import { projectAgent } from '../../projects/projects.js';
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import type { Budgets } from '../budget/budgets.js';
import { budgetLine, spendLine } from '../budget/texts.js';
import type { Conversations } from '../conversations/conversations.js';

export interface StatusTextDeps {
  config: LiveConfig;
  store: Store;
  registry: SessionRegistry;
  conversations: Conversations;
  projects: Projects;
  budgets: Budgets;
}

export class StatusText {
  constructor(private readonly d: StatusTextDeps) {}

  async of(conversationId: string, projectCommands: ProjectCommands): Promise<string> {
    const { conversations, store, registry, config, projects } = this.d;
    const lane = conversations.lane(conversationId);
    const session = lane.session();
    const conv = store.conversation(conversationId);
    const steering = conversations.steering();
    const cap = conversations.warmCap();
    const pid = session?.pid();
    const live = session ? ` (${session.backend}, ${session.state()}${pid ? `, pid ${pid}` : ''})` : '';
    const model = conv?.model ?? projectAgent(config.current().agent, projects.peek(conversationId)).model;
    const lines = [
      `Session: ${conv?.sessionId ?? 'none yet'}${live}`,
      `Model: ${model ?? 'the CLI default'}`,
      `Queue mode: ${conversations.effectiveMode(conversationId)}; waiting: ${lane.queueDepth()}`,
      `Steering: ${steering.on ? 'on' : `off (${steering.reason})`}`,
      `Idle agent processes kept warm: ${registry.idleWarm().length} of maxLive ${cap.maxLive} (${cap.why})`,
    ];
    lines.push(...(await projectCommands.statusLines()));
    lines.push(...this.costLines(conversationId));
    const held = lane.snapshot().held;
    if (held?.why === 'budget') {
      lines.push('Waiting: the daily budget is spent (/budget to see or raise it)');
    } else if (held) {
      const what = held.why === 'rate-limit' ? 'Rate limited' : 'Waiting for the agent terminal';
      const when = `${new Date(held.until).toISOString()}${held.estimated ? ' (estimated)' : ''}`;
      lines.push(`${what} until ${when} (/retry to try now)`);
    }
    return lines.join('\n');
  }

  /** Today's spending: this conversation, its project (with the budget), every project. */
  private costLines(conversationId: string): string[] {
    const { budgets, store } = this.d;
    const now = Date.now();
    const b = budgets.of(conversationId);
    return [
      `Cost today (here): ${spendLine(store.spend.sum(b.start, b.end, { conversationId }))}`,
      `Cost today (${b.project}): ${spendLine(b.spent)}`,
      `Budget (${b.project}): ${budgetLine(b, now)}`,
      `Cost today (all): ${spendLine(store.spend.sum(b.start, b.end))}`,
    ];
  }
}
