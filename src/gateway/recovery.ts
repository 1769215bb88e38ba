/**
 * What a restart does before taking new work, once agents/common/leftovers.ts stopped the agent
 * processes a crashed Rudder left behind: give every open message its due: route what was
 * accepted, queue what was waiting, run again what a crash cut off mid-turn (once), follow again
 * a turn that went on elsewhere, and hold what a rate limit deferred; then follow again the panes
 * conversations are attached to.
 */

import type { Store } from '../store/store.js';
import type { MessageRow } from '../store/types.js';
import type { Conversations } from './conversations/conversations.js';
import type { Router } from './intake/route.js';

export interface RecoveryDeps {
  store: Store;
  conversations: Conversations;
  router: Router;
}

/** Gives every message a previous run left open its due, in order per conversation; before any channel runs. */
export async function recoverOpenMessages(
  d: RecoveryDeps,
): Promise<{ routed: number; queued: number; rerun: number; failed: number; deferred: number; reattached: number }> {
  const counts = { routed: 0, queued: 0, rerun: 0, failed: 0, deferred: 0, reattached: 0 };
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
  followAttachedPanes(d);
  return counts;
}

/** A conversation attached to a person's pane follows it again at once: what is typed there shows. */
function followAttachedPanes(d: RecoveryDeps): void {
  for (const a of d.store.attachments.all()) {
    if (a.kind !== 'pane') continue;
    try {
      d.conversations.lane(a.conversationId).watchSession();
    } catch {
      // The pane or its claude is gone, or the session is held: the next message says why.
    }
  }
}
