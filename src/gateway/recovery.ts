/**
 * What a restart does before taking new work: stop agent processes a crashed Rudder left behind,
 * then give every open message its due: route what was accepted, queue what was waiting, run
 * again what a crash cut off mid-turn (once), and hold what a rate limit deferred.
 */

import { killMarked } from '../agents/common/orphans.js';
import type { Logger } from '../ops/logger.js';
import { alive, cmdlineOf } from '../ops/proc.js';
import type { Store } from '../store/store.js';
import type { MessageRow } from '../store/types.js';
import type { GatewayCore } from './core.js';
import { route } from './intake.js';
import { MAX_ATTEMPTS, RATE_LIMITED, RATE_LIMITED_ESTIMATED } from './lane-outcomes.js';

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

export async function recoverOpenMessages(
  core: GatewayCore,
): Promise<{ routed: number; queued: number; rerun: number; failed: number; deferred: number }> {
  const counts = { routed: 0, queued: 0, rerun: 0, failed: 0, deferred: 0 };
  const byConversation = new Map<string, MessageRow[]>();
  for (const row of core.store.openMessages()) {
    const list = byConversation.get(row.conversationId) ?? [];
    list.push(row);
    byConversation.set(row.conversationId, list);
  }
  for (const [conversationId, rows] of byConversation) {
    const lane = core.lane(conversationId);
    // What a /stop or /clear ended before the crash stays ended.
    const kept = new Set(lane.withoutStopped(rows.filter((r) => r.state !== 'accepted')).map((r) => r.id));
    for (const row of rows) {
      if (row.state !== 'accepted' && !kept.has(row.id)) continue;
      if (row.state === 'accepted') {
        await route(core, row);
        counts.routed++;
      } else if (row.state === 'deferred') {
        const rateLimited = row.reason?.startsWith(RATE_LIMITED) ?? false;
        lane.pause(
          row.retryAt ?? Date.now(),
          rateLimited ? 'rate-limit' : 'agent-terminal',
          row.reason === RATE_LIMITED_ESTIMATED,
        );
        counts.deferred++;
      } else if (row.state === 'queued') {
        lane.queue.push({ rows: [row] });
        counts.queued++;
      } else if (row.attempts < MAX_ATTEMPTS) {
        // running or steering when Rudder stopped: the turn was cut off.
        lane.queue.push({ rows: [row] });
        core.store.markQueued(row.id);
        core.send(
          conversationId,
          'notice',
          '↻ Rudder restarted while this message was being worked on; running it again on the resumed session.',
          [row],
        );
        counts.rerun++;
      } else {
        core.store.setState([row.id], 'failed', 'cut off by a restart, twice');
        core.send(
          conversationId,
          'notice',
          '⚠️ This message was cut off by a Rudder restart, twice, and was not answered. Send it again if ' +
            'you still need it.',
          [row],
        );
        counts.failed++;
      }
    }
    lane.pump();
  }
  return counts;
}
