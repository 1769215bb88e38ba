/**
 * Web Push: the devices that asked for notifications, and the conversations muted for all of them.
 * A subscription has a random id: the same endpoint sent again while it is there is the same row
 * (its keys replaced), but once removed, subscribing it again makes a new one, so the buttons of
 * the old (their tokens name its id) stay revoked. The page names its own by that id.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from './db.js';

export interface PushSubscriptionRow {
  id: string;
  /** The browser's push service URL for this device: a capability, never logged. */
  endpoint: string;
  /** The browser's P-256 public key (base64url, 65 bytes) and auth secret (base64url, 16 bytes). */
  p256dh: string;
  auth: string;
  createdAt: number;
  lastSentAt: number | null;
}

interface SqlRow {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: number;
  last_sent_at: number | null;
}

const toRow = (r: SqlRow): PushSubscriptionRow => ({
  id: r.id,
  endpoint: r.endpoint,
  p256dh: r.p256dh,
  auth: r.auth,
  createdAt: r.created_at,
  lastSentAt: r.last_sent_at,
});

/** A new subscription's id: 22 base64url characters, as the ids of older versions (a hash of the endpoint). */
const newId = () => randomBytes(16).toString('base64url').slice(0, 22);

export class PushSubscriptions {
  private readonly s;

  constructor(db: Db) {
    const p = (sql: string) => db.prepare<unknown[], SqlRow>(sql);
    this.s = {
      all: p('SELECT * FROM push_subscriptions ORDER BY created_at'),
      get: p('SELECT * FROM push_subscriptions WHERE id = ?'),
      byEndpoint: p('SELECT * FROM push_subscriptions WHERE endpoint = ?'),
      insert: p('INSERT INTO push_subscriptions (id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?)'),
      keys: p('UPDATE push_subscriptions SET p256dh = ?, auth = ? WHERE id = ?'),
      remove: p('DELETE FROM push_subscriptions WHERE id = ?'),
      sent: p('UPDATE push_subscriptions SET last_sent_at = ? WHERE id = ?'),
      muted: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM push_mutes WHERE conversation_id = ?'),
      mute: db.prepare('INSERT OR IGNORE INTO push_mutes (conversation_id, muted_at) VALUES (?, ?)'),
      unmute: db.prepare('DELETE FROM push_mutes WHERE conversation_id = ?'),
      mutedAll: db.prepare<[], { conversation_id: string }>('SELECT conversation_id FROM push_mutes'),
    };
  }

  all(): PushSubscriptionRow[] {
    return this.s.all.all().map(toRow);
  }

  get(id: string): PushSubscriptionRow | undefined {
    const r = this.s.get.get(id);
    return r ? toRow(r) : undefined;
  }

  count(): number {
    return this.s.all.all().length;
  }

  /** Adds the subscription, or replaces the keys of the one with the same endpoint; returns its id. */
  put(endpoint: string, p256dh: string, auth: string): string {
    const known = this.s.byEndpoint.get(endpoint);
    if (known) {
      this.s.keys.run(p256dh, auth, known.id);
      return known.id;
    }
    const id = newId();
    this.s.insert.run(id, endpoint, p256dh, auth, Date.now());
    return id;
  }

  /** True when there was one. */
  remove(id: string): boolean {
    return this.s.remove.run(id).changes > 0;
  }

  sent(id: string, at: number): void {
    this.s.sent.run(at, id);
  }

  isMuted(conversationId: string): boolean {
    return (this.s.muted.get(conversationId)?.n ?? 0) > 0;
  }

  setMuted(conversationId: string, muted: boolean): void {
    if (muted) this.s.mute.run(conversationId, Date.now());
    else this.s.unmute.run(conversationId);
  }

  /** Every muted conversation (the list marks them). */
  mutedIds(): Set<string> {
    return new Set(this.s.mutedAll.all().map((r) => r.conversation_id));
  }
}
