/**
 * Discord's live surfaces: the progress card (a message edited in place, sent without a
 * notification), and permission requests with message components (buttons) whose presses come
 * back as interactions over the gateway. Card calls are tried once: the gateway decides what comes
 * next.
 */
import { type ButtonInteraction, ButtonStyle, ComponentType, MessageFlags, type REST, Routes } from 'discord.js';
import type { ButtonView, CardView, InboundSink, MessageRef, PromptView } from '../channel.js';
import { cardMarkdown, postParts, promptParts } from '../common/card.js';
import { withRetry } from '../common/retry.js';
import { splitMarkdown } from '../common/split.js';
import type { SurfaceDeps } from '../runtime/adapter.js';

/**
 * Discord: message content is "up to 2000 characters".
 * https://discord.com/developers/docs/resources/message#create-message
 */
export const DISCORD_TEXT_LIMIT = 2000;
/** At most five buttons to an action row. */
const ROW = 5;
/** Agent output never pings anyone. */
export const NO_MENTIONS = { parse: [], replied_user: false };

const STYLE: Record<NonNullable<ButtonView['style']> | 'none', ButtonStyle> = {
  primary: ButtonStyle.Success,
  danger: ButtonStyle.Danger,
  none: ButtonStyle.Secondary,
};

/** A message's body: mentions off, the message it answers (sent without it if it is gone), @silent where asked. */
export function messageBody(content: string, replyTo?: string, silent = false) {
  const refId = replyTo?.split('@')[0];
  return {
    content,
    allowed_mentions: NO_MENTIONS,
    ...(refId ? { message_reference: { message_id: refId, fail_if_not_exists: false } } : {}),
    ...(silent ? { flags: MessageFlags.SuppressNotifications } : {}),
  };
}

export function components(buttons: ButtonView[]) {
  const rows = [];
  for (let i = 0; i < buttons.length; i += ROW) {
    rows.push({
      type: ComponentType.ActionRow,
      components: buttons.slice(i, i + ROW).map((b) => ({
        type: ComponentType.Button,
        style: STYLE[b.style ?? 'none'],
        label: b.label.slice(0, 80),
        custom_id: b.data,
      })),
    });
  }
  return rows;
}

export class DiscordSurfaces {
  constructor(private readonly d: SurfaceDeps<REST>) {}

  private cardBody(card: CardView) {
    return {
      content: splitMarkdown(cardMarkdown(card), DISCORD_TEXT_LIMIT)[0] ?? card.header,
      components: components(card.buttons),
      allowed_mentions: NO_MENTIONS,
    };
  }

  async postCard(to: MessageRef, card: CardView): Promise<string> {
    // The card stays quiet; the final reply is what notifies.
    const body = { ...this.cardBody(card), flags: MessageFlags.SuppressNotifications };
    const m = (await withRetry(
      () => this.d.client().post(Routes.channelMessages(to.conversationKey), { body }),
      this.d.link.retry('createMessage (progress card)', 1),
    )) as { id: string };
    return m.id;
  }

  async editCard(to: MessageRef, handle: string, card: CardView): Promise<void> {
    await withRetry(
      () => this.d.client().patch(Routes.channelMessage(to.conversationKey, handle), { body: this.cardBody(card) }),
      this.d.link.retry('editMessage (progress card)', 1),
    );
  }

  /** The whole request in as many messages as it takes, the buttons on the last; resolves with its id. */
  askPermission(to: MessageRef, prompt: PromptView): Promise<string> {
    const parts = promptParts(prompt, DISCORD_TEXT_LIMIT, splitMarkdown);
    return postParts(this.d.link, to, parts, async (content, i, last) => {
      const body = {
        // The request rings once, with its first part.
        ...messageBody(content, undefined, i > 0),
        ...(last ? { components: components(prompt.buttons) } : {}),
      };
      const m = (await withRetry(
        () => this.d.client().post(Routes.channelMessages(to.conversationKey), { body }),
        this.d.link.retry('createMessage (permission request)'),
      )) as { id: string };
      return m.id;
    });
  }

  async settlePermission(to: MessageRef, handle: string, prompt: PromptView): Promise<void> {
    const content = promptParts(prompt, DISCORD_TEXT_LIMIT, splitMarkdown).at(-1)!;
    await withRetry(
      () =>
        this.d.client().patch(Routes.channelMessage(to.conversationKey, handle), {
          body: { content, components: [], allowed_mentions: NO_MENTIONS },
        }),
      this.d.link.retry('editMessage (permission request)'),
    );
  }

  /** A button press: the gateway decides, the presser alone sees the answer (an ephemeral reply). */
  async pressed(sink: InboundSink, i: ButtonInteraction): Promise<void> {
    const result = await sink.press({
      channel: 'discord',
      conversationKey: i.channelId,
      sender: { id: i.user.id, name: i.user.globalName ?? i.user.username },
      chatType: i.guildId ? 'group' : 'direct',
      data: i.customId,
    });
    await i.reply({ content: result.text, flags: MessageFlags.Ephemeral }).catch((err: unknown) => {
      this.d.link.log.debug({ err: (err as Error).message }, 'discord interaction not answered');
    });
  }
}
