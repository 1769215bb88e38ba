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
import type { Conversations } from './conversations/conversations.js';
import type { Router } from './intake/route.js';

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

export interface RecoveryDeps {
  store: Store;
  conversations: Conversations;
  router: Router;
}

/** Gives every message a previous run left open its due, in order per conversation; before any channel runs. */
export async function recoverOpenMessages(
  d: RecoveryDeps,
): Promise<{ routed: number; queued: number; rerun: number; failed: number; deferred: number }> {
  const counts = { routed: 0, queued: 0, rerun: 0, failed: 0, deferred: 0 };
  const byConversation = new Map<string, MessageRow[]>();
  for (const row of d.store.inbox.open()) {
    const list = byConversation.get(row.conversationId) ?? [];
    list.push(row);
    byConversation.set(row.conversationId, list);
  }
  for (const [conversationId, rows] of byConversation) {
    const lane = d.conversations.lane(conversationId);
    // What a /stop or /clear ended before the crash stays ended.
    const kept = new Set(lane.withoutStopped(rows.filter((r) => r.state !== 'accepted')).map((r) => r.id));
    for (const row of rows) {
      if (row.state === 'accepted') {
        await d.router.route(row);
        counts.routed++;
      } else if (kept.has(row.id)) {
        counts[lane.recover(row)]++;
      }
    }
    lane.pump();
  }
  return counts;
}
