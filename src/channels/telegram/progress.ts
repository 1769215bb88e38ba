/**
 * Telegram's live surfaces: the progress card (sendMessage, then editMessageText), the reply
 * streamed as a draft in private chats (sendMessageDraft), and permission requests with an inline
 * keyboard whose presses come back as callback queries. Card and draft calls are tried once: the
 * gateway's progress driver decides what comes next.
 */
import { type Api, GrammyError } from 'grammy';
import type { CallbackQuery, InlineKeyboardButton, Message } from 'grammy/types';
import type { Logger } from '../../ops/logger.js';
import type { ButtonView, CardView, InboundSink, MessageRef, PromptView } from '../channel.js';
import { cardMarkdown, promptParts } from '../common/card.js';
import { htmlToText, telegramVisibleLength, toTelegramHtml } from '../common/markdown/telegram.js';
import { type RetryOptions, withRetry } from '../common/retry.js';
import { fitParts } from '../common/split.js';
import { isEntityError } from './errors.js';
import { conversationKeyOf, parseConversationKey } from './inbound.js';

/** Bot API: "Text of the message to be sent, 1-4096 characters after entities parsing". */
export const TELEGRAM_TEXT_LIMIT = 4096;

export interface TelegramSurfaceDeps {
  api(): Api;
  retry(what: string): RetryOptions;
  /** Runs a send in the chat's order, with the replies (common/ordered.ts). */
  inOrder<T>(key: string, task: () => Promise<T>): Promise<T>;
  log: Logger;
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

const fit = (md: string, limit: number) => fitParts(md, limit, toTelegramHtml, telegramVisibleLength);

export class TelegramSurfaces {
  constructor(private readonly d: TelegramSurfaceDeps) {}

  private once(what: string): RetryOptions {
    return { ...this.d.retry(what), attempts: 1 };
  }

  /** HTML first; text Telegram cannot parse as HTML goes again as plain text. */
  private async html<T>(call: (text: string, parse: boolean) => Promise<T>, html: string): Promise<T> {
    try {
      return await call(html, true);
    } catch (err) {
      if (!isEntityError(err)) throw err;
      return call(htmlToText(html), false);
    }
  }

  async postCard(to: MessageRef, card: CardView): Promise<string> {
    const { chatId, topicId } = parseConversationKey(to.conversationKey);
    const html = fit(cardMarkdown(card), TELEGRAM_TEXT_LIMIT)[0] ?? card.header;
    const m = await withRetry(
      () =>
        this.html(
          (text, parse) =>
            this.d.api().sendMessage(chatId, text, {
              ...(topicId !== undefined ? { message_thread_id: topicId } : {}),
              ...(parse ? { parse_mode: 'HTML' as const } : {}),
              // The card stays quiet; the final reply is what notifies.
              disable_notification: true,
              link_preview_options: { is_disabled: true },
              reply_markup: keyboard(card.buttons),
            }),
          html,
        ),
      this.once('sendMessage (progress card)'),
    );
    return String(m.message_id);
  }

  async editCard(to: MessageRef, handle: string, card: CardView): Promise<void> {
    const { chatId } = parseConversationKey(to.conversationKey);
    const html = fit(cardMarkdown(card), TELEGRAM_TEXT_LIMIT)[0] ?? card.header;
    await withRetry(async () => {
      try {
        await this.html(
          (text, parse) =>
            this.d.api().editMessageText(chatId, Number(handle), text, {
              ...(parse ? { parse_mode: 'HTML' as const } : {}),
              link_preview_options: { is_disabled: true },
              reply_markup: keyboard(card.buttons),
            }),
          html,
        );
      } catch (err) {
        if (!isNotModified(err)) throw err;
      }
    }, this.once('editMessageText (progress card)'));
  }

  /** Drafts exist in private chats only (a positive chat id); elsewhere the card shows the text. */
  async draftText(to: MessageRef, draftId: number, text: string): Promise<boolean> {
    const { chatId, topicId } = parseConversationKey(to.conversationKey);
    if (!/^\d+$/.test(chatId)) return false;
    const tail = Array.from(text).slice(-TELEGRAM_TEXT_LIMIT).join('');
    await withRetry(
      () =>
        this.d
          .api()
          .sendMessageDraft(Number(chatId), draftId, tail, topicId !== undefined ? { message_thread_id: topicId } : {}),
      this.once('sendMessageDraft'),
    );
    return true;
  }

  /** The whole request in as many messages as it takes, the keyboard on the last; resolves with its id. */
  askPermission(to: MessageRef, prompt: PromptView): Promise<string> {
    const { chatId, topicId } = parseConversationKey(to.conversationKey);
    const parts = promptParts(prompt, TELEGRAM_TEXT_LIMIT, fit);
    return this.d.inOrder(to.conversationKey, async () => {
      let last = '';
      for (const [i, html] of parts.entries()) {
        const markup = i === parts.length - 1 ? { reply_markup: keyboard(prompt.buttons) } : {};
        const m = await withRetry(
          () =>
            this.html(
              (text, parse) =>
                this.d.api().sendMessage(chatId, text, {
                  ...(topicId !== undefined ? { message_thread_id: topicId } : {}),
                  ...(parse ? { parse_mode: 'HTML' as const } : {}),
                  link_preview_options: { is_disabled: true },
                  // The request rings once, with its first part (the tool and what it asks).
                  ...(i > 0 ? { disable_notification: true } : {}),
                  ...markup,
                }),
              html,
            ),
          this.d.retry('sendMessage (permission request)'),
        );
        last = String(m.message_id);
      }
      return last;
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
      .api()
      .answerCallbackQuery(cq.id, { text: result.text.slice(0, 200), show_alert: !result.ok })
      .catch((err: unknown) => this.d.log.debug({ err: this.d.describe(err) }, 'telegram callback query not answered'));
  }

  /** The last part of the request, with who answered, and no keyboard. */
  async settlePermission(to: MessageRef, handle: string, prompt: PromptView): Promise<void> {
    const { chatId } = parseConversationKey(to.conversationKey);
    const html = promptParts(prompt, TELEGRAM_TEXT_LIMIT, fit).at(-1)!;
    await withRetry(async () => {
      try {
        await this.html(
          (text, parse) =>
            this.d.api().editMessageText(chatId, Number(handle), text, {
              ...(parse ? { parse_mode: 'HTML' as const } : {}),
              link_preview_options: { is_disabled: true },
              reply_markup: { inline_keyboard: [] },
            }),
          html,
        );
      } catch (err) {
        if (!isNotModified(err)) throw err;
      }
    }, this.d.retry('editMessageText (permission request)'));
  }
}
