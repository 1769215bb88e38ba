/**
 * Webhook deliveries seen, by hook and key (hooks/replay.ts says what a key is). The insert is the replay rule's
 * question: a key that was new is the delivery's first arrival and may run; a key already here is a replay. It is
 * written in the transaction of the message the delivery becomes, so a crash leaves neither or both. A key is kept
 * until its forget_at (a signature past its timestamp window, a delivery id after days), then pruned.
 */
import type { Db } from './db.js';

export interface DeliverySeen {
  hook: string;
  key: string;
  seenAt: number;
  messageId: string | null;
  /** Why no message was made (an event ignored or dropped), else null. */
  outcome: string | null;
}

interface SqlRow {
  hook: string;
  key: string;
  seen_at: number;
  message_id: string | null;
  outcome: string | null;
}

export class HookDeliveries {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      claim: db.prepare(
        `INSERT OR IGNORE INTO hook_deliveries (hook, key, seen_at, forget_at, message_id, outcome)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      get: db.prepare<[string, string], SqlRow>('SELECT * FROM hook_deliveries WHERE hook = ? AND key = ?'),
      last: db.prepare<[string], SqlRow>('SELECT * FROM hook_deliveries WHERE hook = ? ORDER BY seen_at DESC LIMIT 1'),
      prune: db.prepare('DELETE FROM hook_deliveries WHERE forget_at < ?'),
    };
  }

  /**
   * Records a delivery's first arrival with what it became (its message, or why none); false when the key was seen
   * before (a replay: nothing is written).
   */
  claim(
    d: { hook: string; key: string; seenAt: number; forgetAt: number },
    became: { messageId?: string; outcome?: string },
  ): boolean {
    const info = this.s.claim.run(
      d.hook,
      d.key,
      d.seenAt,
      d.forgetAt,
      became.messageId ?? null,
      became.outcome ?? null,
    );
    return info.changes > 0;
  }

  get(hook: string, key: string): DeliverySeen | undefined {
    const r = this.s.get.get(hook, key);
    return r && { hook: r.hook, key: r.key, seenAt: r.seen_at, messageId: r.message_id, outcome: r.outcome };
  }

  /** The newest delivery of a hook (the status shows when it last heard). */
  last(hook: string): DeliverySeen | undefined {
    const r = this.s.last.get(hook);
    return r && { hook: r.hook, key: r.key, seenAt: r.seen_at, messageId: r.message_id, outcome: r.outcome };
  }

  /** Forgets keys past their time; returns how many. */
  prune(now = Date.now()): number {
    return this.s.prune.run(now).changes;
  }
}
