/**
 * The inbound messages seen lately, by platformMessageId: Baileys needs the whole message to quote it
 * in a reply, and its full key to react to it.
 */
import type { WAMessage, WAMessageKey } from '@whiskeysockets/baileys';
import { parsePlatformId } from './inbound.js';

/** Recent inbound messages kept for quoting and reactions. */
const RECENT_LIMIT = 500;

export class RecentMessages {
  private readonly byId = new Map<string, WAMessage>();

  remember(platformMessageId: string, m: WAMessage): void {
    this.byId.set(platformMessageId, m);
    while (this.byId.size > RECENT_LIMIT) this.byId.delete(this.byId.keys().next().value as string);
  }

  /** Send options that quote the message, when it is one seen lately. */
  quoting(platformMessageId: string | undefined): { quoted?: WAMessage } {
    const quoted = platformMessageId ? this.byId.get(platformMessageId) : undefined;
    return quoted ? { quoted } : {};
  }

  /** The message's key: the one seen, else rebuilt from its id (someone else's message). */
  keyOf(platformMessageId: string | undefined): WAMessageKey | undefined {
    if (!platformMessageId) return undefined;
    const known = this.byId.get(platformMessageId)?.key;
    if (known) return known;
    const p = parsePlatformId(platformMessageId);
    return p ? { remoteJid: p.jid, id: p.id, fromMe: false } : undefined;
  }
}
