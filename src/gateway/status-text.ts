/** /status for one conversation, as text. */
import type { ProjectCommands } from '../projects/commands.js';
import { projectAgent } from '../projects/projects.js';
import type { GatewayCore } from './core.js';

export async function statusText(
  core: GatewayCore,
  conversationId: string,
  projects: ProjectCommands,
): Promise<string> {
  const lane = core.lane(conversationId);
  const session = lane.session();
  const conv = core.store.conversation(conversationId);
  const steering = core.steering();
  const lines = [
    `Session: ${conv?.sessionId ?? 'none yet'}${session ? ` (${session.backend}, ${session.state()}${session.pid() ? `, pid ${session.pid()}` : ''})` : ''}`,
    `Model: ${conv?.model ?? projectAgent(core.settings().agent, core.projects.peek(conversationId)).model ?? 'the CLI default'}`,
    `Queue mode: ${core.effectiveMode(conversationId)}; waiting: ${lane.queueDepth()}`,
    `Steering: ${steering.on ? 'on' : `off (${steering.reason})`}`,
    `Idle agent processes kept warm: ${core.registry.idleWarm().length} of ` +
      `maxLive ${core.warmCap().maxLive} (${core.warmCap().why})`,
  ];
  lines.push(...(await projects.statusLines()));
  if (lane.pausedUntil > Date.now())
    lines.push(
      `${
        lane.pauseReason === 'rate-limit' ? 'Rate limited' : 'Waiting for the agent ' + 'terminal'
      } until ${new Date(lane.pausedUntil).toISOString()}${lane.pauseEstimated ? ' (estimated)' : ''} (/retry to try now)`,
    );
  return lines.join('\n');
}
