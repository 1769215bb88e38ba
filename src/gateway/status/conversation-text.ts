/** /status for one conversation, as text: its session, model, queue, steering, warm processes, project and hold. */
import type { SessionRegistry } from '../../agents/registry.js';
import type { LiveConfig } from '../../config/load.js';
import type { ProjectCommands } from '../../projects/commands.js';
import { projectAgent } from '../../projects/projects.js';
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import type { Conversations } from '../conversations/conversations.js';

export interface StatusTextDeps {
  config: LiveConfig;
  store: Store;
  registry: SessionRegistry;
  conversations: Conversations;
  projects: Projects;
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
    const held = lane.snapshot().held;
    if (held) {
      const what = held.why === 'rate-limit' ? 'Rate limited' : 'Waiting for the agent terminal';
      const when = `${new Date(held.until).toISOString()}${held.estimated ? ' (estimated)' : ''}`;
      lines.push(`${what} until ${when} (/retry to try now)`);
    }
    return lines.join('\n');
  }
}
