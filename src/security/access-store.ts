/**
 * Durable access state: senders admitted by pairing, and pending pairing codes. Lives in the
 * gateway's SQLite database; the tables are prefixed `access_` and created by init().
 */
import type { Database } from 'better-sqlite3';

export interface PairingRequest {
  channel: string;
  /** Normalised code: 8 characters from PAIRING_ALPHABET, no separator. */
  code: string;
  senderId: string;
  senderName?: string;
  conversationKey: string;
  createdAt: number;
  expiresAt: number;
  /** When the sender was last told the code (replies are rate limited). */
  notifiedAt: number;
}

export interface ApprovedSender {
  channel: string;
  senderId: string;
  senderName?: string;
  approvedAt: number;
}

interface PairingRow {
  channel: string;
  code: string;
  sender_id: string;
  sender_name: string | null;
  conversation_key: string;
  created_at: number;
  expires_at: number;
  notified_at: number;
}

interface ApprovedRow {
  channel: string;
  sender_id: string;
  sender_name: string | null;
  approved_at: number;
}

const toRequest = (r: PairingRow): PairingRequest => ({
  channel: r.channel,
  code: r.code,
  senderId: r.sender_id,
  senderName: r.sender_name ?? undefined,
  conversationKey: r.conversation_key,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  notifiedAt: r.notified_at,
});

/**
 * Pending codes per channel at most. A full channel gives no new codes until some expire or are
 * approved: a flood of strangers never evicts a code someone is waiting to have approved.
 */
export const MAX_PENDING_PER_CHANNEL = 100;

/** Every statement the store runs, prepared once: access checks read on every inbound message. */
function prepare(db: Database) {
  return {
    isApproved: db.prepare('SELECT 1 FROM access_approved WHERE channel = ? AND sender_id = ?'),
    approve: db.prepare(
      `INSERT INTO access_approved (channel, sender_id, sender_name, approved_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (channel, sender_id) DO UPDATE SET sender_name = excluded.sender_name, approved_at = ` +
        `excluded.approved_at`,
    ),
    approvedAll: db.prepare('SELECT * FROM access_approved ORDER BY channel, approved_at'),
    approvedIn: db.prepare('SELECT * FROM access_approved WHERE channel = ? ORDER BY approved_at'),
    pendingFor: db.prepare('SELECT * FROM access_pairing WHERE channel = ? AND sender_id = ?'),
    findCode: db.prepare('SELECT * FROM access_pairing WHERE channel = ? AND code = ?'),
    deleteSender: db.prepare('DELETE FROM access_pairing WHERE channel = ? AND sender_id = ?'),
    insertRequest: db.prepare(
      `INSERT INTO access_pairing (channel, code, sender_id, sender_name, conversation_key, created_at, ` +
        `expires_at, notified_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    deleteExpiredIn: db.prepare('DELETE FROM access_pairing WHERE channel = ? AND expires_at <= ?'),
    countOthers: db.prepare('SELECT COUNT(*) AS n FROM access_pairing WHERE channel = ? AND sender_id != ?'),
    markNotified: db.prepare('UPDATE access_pairing SET notified_at = ? WHERE channel = ? AND code = ?'),
    deleteCode: db.prepare('DELETE FROM access_pairing WHERE channel = ? AND code = ?'),
    deleteExpired: db.prepare('DELETE FROM access_pairing WHERE expires_at <= ?'),
    pendingAll: db.prepare('SELECT * FROM access_pairing WHERE expires_at > ? ORDER BY created_at'),
    pendingIn: db.prepare('SELECT * FROM access_pairing WHERE expires_at > ? AND channel = ? ORDER BY created_at'),
  };
}

export class AccessStore {
  private stmts?: ReturnType<typeof prepare>;

  constructor(private readonly db: Database) {}

  init(): void {
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS access_pairing (
        channel TEXT NOT NULL,
        code TEXT NOT NULL,
        sender_id TEXT NOT NULL,
        sender_name TEXT,
        conversation_key TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        notified_at INTEGER NOT NULL,
        PRIMARY KEY (channel, code),
        UNIQUE (channel, sender_id)
      );
      CREATE TABLE IF NOT EXISTS access_approved (
        channel TEXT NOT NULL,
        sender_id TEXT NOT NULL,
        sender_name TEXT,
        approved_at INTEGER NOT NULL,
        PRIMARY KEY (channel, sender_id)
      );
    `);
  }

  /** Prepared on first use, once init() has made the tables they name. */
  private get s(): ReturnType<typeof prepare> {
    return (this.stmts ??= prepare(this.db));
  }

  isApproved(channel: string, senderId: string): boolean {
    return this.s.isApproved.get(channel, senderId) !== undefined;
  }

  approve(channel: string, senderId: string, senderName: string | undefined, now: number): void {
    this.s.approve.run(channel, senderId, senderName ?? null, now);
  }

  listApproved(channel?: string): ApprovedSender[] {
    const rows = (channel === undefined ? this.s.approvedAll.all() : this.s.approvedIn.all(channel)) as ApprovedRow[];
    return rows.map((r) => ({
      channel: r.channel,
      senderId: r.sender_id,
      senderName: r.sender_name ?? undefined,
      approvedAt: r.approved_at,
    }));
  }

  /** The sender's pending request, expired or not. */
  pendingFor(channel: string, senderId: string): PairingRequest | undefined {
    const row = this.s.pendingFor.get(channel, senderId) as PairingRow | undefined;
    return row ? toRequest(row) : undefined;
  }

  findCode(channel: string, code: string): PairingRequest | undefined {
    const row = this.s.findCode.get(channel, code) as PairingRow | undefined;
    return row ? toRequest(row) : undefined;
  }

  /**
   * Stores a new request, replacing the sender's old one; expired codes make room first. Returns
   * false, storing nothing, when the channel already holds MAX_PENDING_PER_CHANNEL live codes.
   */
  putRequest(req: PairingRequest): boolean {
    const s = this.s;
    return this.transaction(() => {
      s.deleteExpiredIn.run(req.channel, req.createdAt);
      if ((s.countOthers.get(req.channel, req.senderId) as { n: number }).n >= MAX_PENDING_PER_CHANNEL) return false;
      s.deleteSender.run(req.channel, req.senderId);
      s.insertRequest.run(
        req.channel,
        req.code,
        req.senderId,
        req.senderName ?? null,
        req.conversationKey,
        req.createdAt,
        req.expiresAt,
        req.notifiedAt,
      );
      return true;
    });
  }

  markNotified(channel: string, code: string, now: number): void {
    this.s.markNotified.run(now, channel, code);
  }

  deleteCode(channel: string, code: string): void {
    this.s.deleteCode.run(channel, code);
  }

  deleteExpired(now: number): void {
    this.s.deleteExpired.run(now);
  }

  listPending(now: number, channel?: string): PairingRequest[] {
    const rows = (
      channel === undefined ? this.s.pendingAll.all(now) : this.s.pendingIn.all(now, channel)
    ) as PairingRow[];
    return rows.map(toRequest);
  }

  /** Runs fn in one transaction (approval reads and writes together). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}
