/**
 * The agent processes a crashed run left behind (the gateway's, or a node's): every recorded process
 * group still alive and still claude, and anything carrying this data dir's mark, is killed at start.
 */
import type { Logger } from '../../ops/logger.js';
import { alive, cmdlineOf } from '../../ops/proc.js';
import type { Store } from '../../store/store.js';
import { killMarked } from './orphans.js';

/**
 * Kills process groups recorded by an earlier run that are still alive and still claude, and anything carrying this
 * gateway's mark.
 */
export function killOrphans(store: Store, log: Logger, markPrefix?: string): number {
  let killed = 0;
  for (const p of store.processes()) {
    const cmd = cmdlineOf(p.pid);
    if (alive(p.pid) && cmd && /claude/.test(cmd)) {
      try {
        process.kill(-p.pid, 'SIGKILL');
        killed++;
        log.warn(
          { pid: p.pid, conversationId: p.conversationId },
          'stopped an agent process left behind by the previous run',
        );
      } catch {
        // Already gone.
      }
    }
    store.processExited(p.pid);
  }
  if (markPrefix) {
    const tools = killMarked((m) => m.startsWith(`${markPrefix}:`));
    if (tools) log.warn({ processes: tools }, "stopped processes the previous run's agents left behind");
    killed += tools;
  }
  return killed;
}
