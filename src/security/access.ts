/**
 * Access control, deny by default, the same for every chat channel. A sender is admitted when
 * they are an owner (config), on the channel's allowlist (config), or approved by pairing
 * (`rudder pairing approve <channel> <code>`). Group chats are answered only when Rudder is
 * addressed. Decisions are synchronous (SQLite reads). Whether a message is a command, and that
 * only owners run commands and answer permission requests, is decided after it is committed
 * (gateway/intake.ts route(), with isOwner() from here).
 */
import { randomInt } from 'node:crypto';
import type { ChannelAccessConfig } from '../config/channels-schema.js';
import type { AccessStore, PairingRequest } from './access-store.js';
import { SenderLimiter } from './pairing-limits.js';

/**
 * What a decision reads of an inbound message: the fields of the channels' InboundMessage it needs,
 * declared here so this floor does not import the channels above it (an InboundMessage is one).
 */
export interface AccessRequest {
  channel: string;
  conversationKey: string;
  /** The channel a thread belongs to (Discord), which a group allowlist may name. */
  parentKey?: string;
  sender: { id: string; name?: string };
  chatType: 'direct' | 'group';
  /** In a group: the bot was mentioned or replied to. */
  addressed?: boolean;
}

export type AccessDecision =
  | { allowed: true; owner: boolean }
  | {
      allowed: false;
      /** Stable reason for the refusal record: see RefusalReason. */
      reason: RefusalReason;
      /** Text to send back to the sender, when one is due (e.g. their pairing code). */
      reply?: string;
    };

export type RefusalReason =
  | 'channel-not-configured'
  | 'group-not-addressed'
  | 'groups-disabled'
  | 'group-not-allowed'
  | 'not-allowed'
  | 'pairing-pending'
  | 'pairing-busy'
  | 'command-owner-only';

/** Crockford-style alphabet without 0/O, 1/I/L and U: nothing to misread when typed. */
export const PAIRING_ALPHABET = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';
export const PAIRING_CODE_LENGTH = 8;
export const PAIRING_TTL_MS = 60 * 60_000;
/** A sender who keeps writing is reminded of their code at most this often. */
export const PAIRING_REMIND_MS = 10 * 60_000;
/** New codes one sender may be given in PAIRING_CODES_WINDOW_MS. */
export const PAIRING_CODES_PER_SENDER = 3;
export const PAIRING_CODES_WINDOW_MS = 24 * 60 * 60_000;
/** Strangers remembered for the group-reply throttle; the oldest are forgotten first. */
const MAX_GROUP_NOTICES = 1_000;

export interface AccessControlOptions {
  store: AccessStore;
  /** The `channels` config section (or any map of channel name to its access settings). */
  config: Partial<Record<string, ChannelAccessConfig | undefined>>;
  /** Channels that authenticate on their own (the local web page); every sender is an owner. */
  trustedChannels?: string[];
  now?: () => number;
  codeTtlMs?: number;
}

/** Ids as people write them in the config: phone numbers may carry a leading "+". */
export function normaliseId(id: string): string {
  return id.trim().replace(/^\+/, '');
}

export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  return code;
}

/** Accepts what a person types: any case, with spaces or dashes. */
export function normaliseCode(input: string): string {
  return input.toUpperCase().replace(/[\s-]/g, '');
}

/** "ABCD-EFGH": how a code is shown. */
export function formatCode(code: string): string {
  return code.length === 8 ? `${code.slice(0, 4)}-${code.slice(4)}` : code;
}

export function pairingReply(channel: string, code: string, ttlMs: number): string {
  return [
    'This Rudder gateway is private. To get access, ask its owner to run:',
    '',
    `rudder pairing approve ${channel} ${formatCode(code)}`,
    '',
    `The code expires in ${Math.round(ttlMs / 60_000)} minutes.`,
  ].join('\n');
}

export class AccessControl {
  private readonly store: AccessStore;
  private readonly config: AccessControlOptions['config'];
  private readonly trusted: Set<string>;
  private readonly now: () => number;
  private readonly ttl: number;
  /** When each stranger ("<channel>\n<sender>") was last pointed to a DM from a group; in memory. */
  private readonly groupNotices = new Map<string, number>();
  private readonly codesPerSender = new SenderLimiter(PAIRING_CODES_PER_SENDER, PAIRING_CODES_WINDOW_MS);
  private readonly busyNotices = new SenderLimiter(1, PAIRING_REMIND_MS);

  constructor(o: AccessControlOptions) {
    this.store = o.store;
    this.config = o.config;
    this.trusted = new Set(o.trustedChannels ?? ['web']);
    this.now = o.now ?? Date.now;
    this.ttl = o.codeTtlMs ?? PAIRING_TTL_MS;
  }

  /**
   * The door's decision, with its side effects: a stranger in a direct chat is given a pairing
   * code (or reminded of it), a stranger in a group is pointed to a direct chat (throttled).
   */
  check(msg: AccessRequest): AccessDecision {
    const d = this.decide(msg);
    return d === 'stranger' ? this.refuseStranger(msg, this.config[msg.channel]!) : d;
  }

  /**
   * The same decision as check(), without side effects and cheap: channels ask it before they
   * download anything a message carries.
   */
  admits(msg: AccessRequest): boolean {
    const d = this.decide(msg);
    return d !== 'stranger' && d.allowed;
  }

  /** Whether the sender is an owner of the channel: only owners run commands and answer permission requests. */
  isOwner(channel: string, senderId: string): boolean {
    if (this.trusted.has(channel)) return true;
    const sender = normaliseId(senderId);
    return this.config[channel]?.owners.some((o) => normaliseId(o) === sender) ?? false;
  }

  private decide(msg: AccessRequest): AccessDecision | 'stranger' {
    if (this.trusted.has(msg.channel)) return { allowed: true, owner: true };
    const cfg = this.config[msg.channel];
    if (!cfg) return { allowed: false, reason: 'channel-not-configured' };
    const sender = normaliseId(msg.sender.id);
    const owner = this.isOwner(msg.channel, msg.sender.id);

    if (msg.chatType === 'group') {
      if (!cfg.groups.enabled) return { allowed: false, reason: 'groups-disabled' };
      if (cfg.groups.requireMention && !msg.addressed) return { allowed: false, reason: 'group-not-addressed' };
      // A group is named by its chat id, its full key (a topic), or its parent (a thread's channel).
      const names = [msg.conversationKey.split(':')[0]!, msg.conversationKey, msg.parentKey].filter(
        (k): k is string => !!k,
      );
      if (cfg.groups.allow.length > 0 && !names.some((k) => cfg.groups.allow.includes(k))) {
        return { allowed: false, reason: 'group-not-allowed' };
      }
    }

    const admitted =
      owner || cfg.allow.some((a) => normaliseId(a) === sender) || this.store.isApproved(msg.channel, msg.sender.id);
    return admitted ? { allowed: true, owner } : 'stranger';
  }

  /** Strangers get a pairing code in a direct chat; in a group they are pointed to one. */
  private refuseStranger(msg: AccessRequest, cfg: ChannelAccessConfig): AccessDecision {
    if (!cfg.pairing) return { allowed: false, reason: 'not-allowed' };
    const now = this.now();
    if (msg.chatType === 'group') {
      // Throttled like DM reminders, so nobody can make the bot flood a group.
      if (!this.groupNoticeDue(`${msg.channel}\n${normaliseId(msg.sender.id)}`, now))
        return { allowed: false, reason: 'not-allowed' };
      return {
        allowed: false,
        reason: 'not-allowed',
        reply: 'You are not on this gateway’s access list. Message me directly to get a pairing code.',
      };
    }
    const existing = this.store.pendingFor(msg.channel, msg.sender.id);
    if (existing && existing.expiresAt > now) {
      if (now - existing.notifiedAt < PAIRING_REMIND_MS) return { allowed: false, reason: 'pairing-pending' };
      this.store.markNotified(msg.channel, existing.code, now);
      return {
        allowed: false,
        reason: 'pairing-pending',
        reply: pairingReply(msg.channel, existing.code, existing.expiresAt - now),
      };
    }
    // Throttled per sender, so a flood of strangers costs one reply each at most.
    const key = `${msg.channel}\n${normaliseId(msg.sender.id)}`;
    const busy = (reply: string): AccessDecision =>
      this.busyNotices.take(key, now)
        ? { allowed: false, reason: 'pairing-busy', reply }
        : { allowed: false, reason: 'pairing-busy' };
    if (!this.codesPerSender.can(key, now))
      return busy('You have asked for pairing codes too often; try again tomorrow.');
    const req: PairingRequest = {
      channel: msg.channel,
      code: this.freshCode(msg.channel),
      senderId: msg.sender.id,
      senderName: msg.sender.name,
      conversationKey: msg.conversationKey,
      createdAt: now,
      expiresAt: now + this.ttl,
      notifiedAt: now,
    };
    if (!this.store.putRequest(req))
      return busy('Too many pairing requests are waiting for the owner of this gateway; try again in an hour.');
    this.codesPerSender.take(key, now);
    return { allowed: false, reason: 'pairing-pending', reply: pairingReply(msg.channel, req.code, this.ttl) };
  }

  /** True (and remembered) when the stranger was not told within PAIRING_REMIND_MS. */
  private groupNoticeDue(key: string, now: number): boolean {
    const last = this.groupNotices.get(key);
    if (last !== undefined && now - last < PAIRING_REMIND_MS) return false;
    // Re-inserting keeps the map in notice order, so the first entries are the oldest.
    this.groupNotices.delete(key);
    this.groupNotices.set(key, now);
    for (const [k, at] of this.groupNotices) {
      if (this.groupNotices.size <= MAX_GROUP_NOTICES && now - at < PAIRING_REMIND_MS) break;
      this.groupNotices.delete(k);
    }
    return true;
  }

  private freshCode(channel: string): string {
    for (;;) {
      const code = newPairingCode();
      if (!this.store.findCode(channel, code)) return code;
    }
  }
}

export type ApproveResult =
  | { ok: true; channel: string; senderId: string; senderName?: string; conversationKey: string }
  | { ok: false; reason: 'not-found' | 'expired' };

/** Admits the sender who was given `code` on `channel`; codes work once and expire. */
export function approvePairing(
  store: AccessStore,
  channel: string,
  code: string,
  now: number = Date.now(),
): ApproveResult {
  const wanted = normaliseCode(code);
  return store.transaction(() => {
    const req = store.findCode(channel, wanted);
    if (!req) return { ok: false, reason: 'not-found' } as const;
    store.deleteCode(channel, req.code);
    if (req.expiresAt <= now) return { ok: false, reason: 'expired' } as const;
    store.approve(channel, req.senderId, req.senderName, now);
    return {
      ok: true,
      channel,
      senderId: req.senderId,
      senderName: req.senderName,
      conversationKey: req.conversationKey,
    } as const;
  });
}

/** Pending (unexpired) pairing requests, oldest first; expired ones are removed. */
export function listPairing(store: AccessStore, channel?: string, now: number = Date.now()): PairingRequest[] {
  store.deleteExpired(now);
  return store.listPending(now, channel);
}
