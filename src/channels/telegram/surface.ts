/**
 * Telegram's live surfaces: the progress card (sendMessage, then editMessageText), the reply
 * streamed as a draft in private chats (sendMessageDraft), and permission requests with an inline
 * keyboard whose presses come back as callback queries. Card and draft calls are tried once: the
 * gateway decides what comes next.
 */
import { type Api, GrammyError } from 'grammy';
import type { CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message } from 'grammy/types';
import type { ButtonView, CardView, InboundSink, MessageRef, PromptView } from '../channel.js';
import { cardMarkdown, postParts, promptParts } from '../common/card.js';
import { htmlToText, telegramVisibleLength, toTelegramHtml } from '../common/markdown/telegram.js';
import { withRetry } from '../common/retry.js';
import { fitParts } from '../common/split.js';
import type { SurfaceDeps } from '../runtime/adapter.js';
import { conversationKeyOf, parseConversationKey, placement } from './address.js';
import { isEntityError } from './errors.js';

/** Bot API: "Text of the message to be sent, 1-4096 characters after entities parsing". */
export const TELEGRAM_TEXT_LIMIT = 4096;

export interface TelegramSurfaceDeps extends SurfaceDeps<Api> {
  /** An error as text without the token. */
  describe(err: unknown): string;
}

/** Buttons in rows: up to three side by side, more one per row. */
export function keyboard(buttons: ButtonView[]): { inline_keyboard: InlineKeyboardButton[][] } {
  const row = (b: ButtonView): InlineKeyboardButton => ({ text: b.label, callback_data: b.data });
  return {
    inline_keyboard: buttons.length <= 3 ? (buttons.length ? [buttons.map(row)] : []) : buttons.map((b) => [row(b)]),
  };
}

/** Telegram refuses an edit that changes nothing; for a card that is success. */
function isNotModified(err: unknown): boolean {
  return err instanceof GrammyError && err.error_code === 400 && /message is not modified/i.test(err.description);
}

/** HTML, unless this is the plain-text retry; link previews never. */
const format = (parse: boolean) => ({
  ...(parse ? { parse_mode: 'HTML' as const } : {}),
  link_preview_options: { is_disabled: true },
});

const fit = (md: string, limit: number) => fitParts(md, limit, toTelegramHtml, telegramVisibleLength);

/** HTML first; text Telegram cannot parse as HTML goes again as plain text. */
async function htmlOrPlain<T>(call: (text: string, parse: boolean) => Promise<T>, html: string): Promise<T> {
  try {
    return await call(html, true);
  } catch (err) {
    if (!isEntityError(err)) throw err;
    return call(htmlToText(html), false);
  }
}

export class TelegramSurfaces {
  constructor(private readonly d: TelegramSurfaceDeps) {}

  postCard(to: MessageRef, card: CardView): Promise<string> {
    const html = fit(cardMarkdown(card), TELEGRAM_TEXT_LIMIT)[0] ?? card.header;
    // The card stays quiet; the final reply is what notifies.
    const quiet = { disable_notification: true, reply_markup: keyboard(card.buttons) };
    return this.post(to, html, quiet, 'sendMessage (progress card)', 1);
  }

  editCard(to: MessageRef, handle: string, card: CardView): Promise<void> {
    const html = fit(cardMarkdown(card), TELEGRAM_TEXT_LIMIT)[0] ?? card.header;
    return this.edit(to, handle, html, keyboard(card.buttons), 'editMessageText (progress card)', 1);
  }

  /** Drafts exist in private chats only (a positive chat id); elsewhere the card shows the text. */
  async draftText(to: MessageRef, draftId: number, text: string): Promise<boolean> {
    const { chatId, topicId } = parseConversationKey(to.conversationKey);
    if (!/^\d+$/.test(chatId)) return false;
    const tail = Array.from(text).slice(-TELEGRAM_TEXT_LIMIT).join('');
    await withRetry(
      () => this.d.client().sendMessageDraft(Number(chatId), draftId, tail, placement(topicId)),
      this.d.link.retry('sendMessageDraft', 1),
    );
    return true;
  }

  /** The whole request in as many messages as it takes, the keyboard on the last; resolves with its id. */
  askPermission(to: MessageRef, prompt: PromptView): Promise<string> {
    const parts = promptParts(prompt, TELEGRAM_TEXT_LIMIT, fit);
    return postParts(this.d.link, to, parts, (html, i, last) => {
      const extra = {
        // The request rings once, with its first part (the tool and what it asks).
        ...(i > 0 ? { disable_notification: true } : {}),
        ...(last ? { reply_markup: keyboard(prompt.buttons) } : {}),
      };
      return this.post(to, html, extra, 'sendMessage (permission request)');
    });
  }

  /** A button press: the gateway decides, then the presser sees its answer (an alert when refused). */
  async pressed(sink: InboundSink, cq: CallbackQuery): Promise<void> {
    const m = cq.message;
    const result = m
      ? await sink.press({
          channel: 'telegram',
          conversationKey: conversationKeyOf(m as Message),
          sender: {
            id: String(cq.from.id),
            name: [cq.from.first_name, cq.from.last_name].filter(Boolean).join(' ') || cq.from.username,
          },
          chatType: m.chat.type === 'private' ? 'direct' : 'group',
          data: cq.data ?? '',
        })
      : { ok: false, text: 'This message is too old to act on.' };
    await this.d
      .client()
      .answerCallbackQuery(cq.id, { text: result.text.slice(0, 200), show_alert: !result.ok })
      .catch((err: unknown) =>
        this.d.link.log.debug({ err: this.d.describe(err) }, 'telegram callback query not answered'),
      );
  }

  /** The last part of the request, with who answered, and no keyboard. */
  settlePermission(to: MessageRef, handle: string, prompt: PromptView): Promise<void> {
    const html = promptParts(prompt, TELEGRAM_TEXT_LIMIT, fit).at(-1)!;
    return this.edit(to, handle, html, { inline_keyboard: [] }, 'editMessageText (permission request)');
  }

  /** A new message in the chat (or its topic), HTML first; resolves with its id. */
  private async post(to: MessageRef, html: string, extra: object, what: string, attempts?: number): Promise<string> {
    const { chatId, topicId } = parseConversationKey(to.conversationKey);
    const m = await withRetry(
      () =>
        htmlOrPlain(
          (text, parse) =>
            this.d.client().sendMessage(chatId, text, { ...placement(topicId), ...format(parse), ...extra }),
          html,
        ),
      this.d.link.retry(what, attempts),
    );
    return String(m.message_id);
  }

  /** Replaces a message's text and buttons; an edit that changes nothing is done. */
  private async edit(
    to: MessageRef,
    handle: string,
    html: string,
    markup: InlineKeyboardMarkup,
    what: string,
    attempts?: number,
  ): Promise<void> {
    const { chatId } = parseConversationKey(to.conversationKey);
    await withRetry(
      async () => {
        try {
          await htmlOrPlain(
            (text, parse) =>
              this.d.client().editMessageText(chatId, Number(handle), text, { ...format(parse), reply_markup: markup }),
            html,
          );
        } catch (err) {
          if (!isNotModified(err)) throw err;
        }
      },
      this.d.link.retry(what, attempts),
    );
  }
}
