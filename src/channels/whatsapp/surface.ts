/**
 * WhatsApp's live surface: the progress card, a message edited in place (Baileys `edit: key`) within
 * WhatsApp's edit window. No buttons and no drafts here: the card says how to stop. Card calls are
 * tried once: the gateway decides what comes next.
 */
import type { WAMessageKey, WASocket } from '@whiskeysockets/baileys';
import { RudderError } from '../../errors.js';
import type { CardView, MessageRef } from '../channel.js';
import { cardMarkdown } from '../common/card.js';
import { toWhatsApp } from '../common/markdown/whatsapp.js';
import { withRetry } from '../common/retry.js';
import type { SurfaceDeps } from '../runtime/adapter.js';

/**
 * WhatsApp's documented text body limit is 4096 characters (Cloud API `text.body`,
 * https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages); the Web client
 * accepts more, but parts this size stay readable on a phone.
 */
export const WHATSAPP_TEXT_LIMIT = 4096;

export interface WhatsAppSurfaceDeps extends SurfaceDeps<WASocket> {
  /** How long after posting a card may still be edited. */
  editWindowMs: number;
}

/** A card has no buttons here; it says how to stop while its turn runs. */
function cardText(card: CardView): string {
  const md = card.buttons.length ? `${cardMarkdown(card)}\n_Send /stop to stop._` : cardMarkdown(card);
  return toWhatsApp(md).slice(0, WHATSAPP_TEXT_LIMIT);
}

export class WhatsAppSurfaces {
  constructor(private readonly d: WhatsAppSurfaceDeps) {}

  /** Posts a card; the handle is its key and when it was sent (edits are shown for 15 minutes only). */
  async postCard(to: MessageRef, card: CardView): Promise<string> {
    const m = await withRetry(
      () => this.d.client().sendMessage(to.conversationKey, { text: cardText(card) }),
      this.d.link.retry('sendMessage (progress card)', 1),
    );
    if (!m?.key)
      throw new RudderError('CHANNEL_SEND_FAILED', 'WhatsApp gave no key for the progress card.', {
        channel: 'whatsapp',
        permanent: true,
      });
    return JSON.stringify({ key: m.key, at: Date.now() });
  }

  /**
   * Edits a card; past WhatsApp's edit window it says it cannot, and the gateway posts short status
   * messages instead.
   */
  async editCard(to: MessageRef, handle: string, card: CardView): Promise<void> {
    const { key, at } = JSON.parse(handle) as { key: WAMessageKey; at: number };
    if (Date.now() - at > this.d.editWindowMs)
      throw new RudderError('CHANNEL_SEND_FAILED', 'WhatsApp shows edits made within 15 minutes only.', {
        channel: 'whatsapp',
        permanent: true,
      });
    await withRetry(
      () => this.d.client().sendMessage(to.conversationKey, { text: cardText(card), edit: key }),
      this.d.link.retry('sendMessage (progress card edit)', 1),
    );
  }
}
