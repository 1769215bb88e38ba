/**
 * Discord's live surfaces: the progress card (a message edited in place, sent without a
 * notification), and permission requests with message components (buttons) whose presses come
 * back as interactions over the gateway. Card calls are tried once: the gateway's progress driver
 * decides what comes next.
 */
import { type ButtonInteraction, ButtonStyle, ComponentType, MessageFlags, type REST, Routes } from 'discord.js';
import type { Logger } from '../../ops/logger.js';
import type { ButtonView, CardView, InboundSink, MessageRef, PromptView } from '../channel.js';
import { cardMarkdown, promptParts } from '../common/card.js';
import { type RetryOptions, withRetry } from '../common/retry.js';
import { splitMarkdown } from '../common/split.js';

export const DISCORD_LIMIT = 2000;
/** At most five buttons to an action row. */
const ROW = 5;
const NO_MENTIONS = { parse: [], replied_user: false };

const STYLE: Record<NonNullable<ButtonView['style']> | 'none', ButtonStyle> = {
  primary: ButtonStyle.Success,
  danger: ButtonStyle.Danger,
  none: ButtonStyle.Secondary,
};

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

export interface DiscordSurfaceDeps {
  rest(): REST;
  retry(what: string): RetryOptions;
  inOrder<T>(key: string, task: () => Promise<T>): Promise<T>;
  log: Logger;
}

export class DiscordSurfaces {
  constructor(private readonly d: DiscordSurfaceDeps) {}

  private once(what: string): RetryOptions {
    return { ...this.d.retry(what), attempts: 1 };
  }

  private cardBody(card: CardView) {
    return {
      content: splitMarkdown(cardMarkdown(card), DISCORD_LIMIT)[0] ?? card.header,
      components: components(card.buttons),
      allowed_mentions: NO_MENTIONS,
    };
  }

  async postCard(to: MessageRef, card: CardView): Promise<string> {
    // The card stays quiet; the final reply is what notifies.
    const body = { ...this.cardBody(card), flags: MessageFlags.SuppressNotifications };
    const m = (await withRetry(
      () => this.d.rest().post(Routes.channelMessages(to.conversationKey), { body }),
      this.once('createMessage (progress card)'),
    )) as { id: string };
    return m.id;
  }

  async editCard(to: MessageRef, handle: string, card: CardView): Promise<void> {
    await withRetry(
      () => this.d.rest().patch(Routes.channelMessage(to.conversationKey, handle), { body: this.cardBody(card) }),
      this.once('editMessage (progress card)'),
    );
  }

  /** The whole request in as many messages as it takes, the buttons on the last; resolves with its id. */
  askPermission(to: MessageRef, prompt: PromptView): Promise<string> {
    const parts = promptParts(prompt, DISCORD_LIMIT, splitMarkdown);
    return this.d.inOrder(to.conversationKey, async () => {
      let last = '';
      for (const [i, content] of parts.entries()) {
        const body = {
          content,
          allowed_mentions: NO_MENTIONS,
          ...(i === parts.length - 1 ? { components: components(prompt.buttons) } : {}),
          // The request rings once, with its first part.
          ...(i > 0 ? { flags: MessageFlags.SuppressNotifications } : {}),
        };
        const m = (await withRetry(
          () => this.d.rest().post(Routes.channelMessages(to.conversationKey), { body }),
          this.d.retry('createMessage (permission request)'),
        )) as { id: string };
        last = m.id;
      }
      return last;
    });
  }

  async settlePermission(to: MessageRef, handle: string, prompt: PromptView): Promise<void> {
    const content = promptParts(prompt, DISCORD_LIMIT, splitMarkdown).at(-1)!;
    await withRetry(
      () =>
        this.d.rest().patch(Routes.channelMessage(to.conversationKey, handle), {
          body: { content, components: [], allowed_mentions: NO_MENTIONS },
        }),
      this.d.retry('editMessage (permission request)'),
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
      this.d.log.debug({ err: (err as Error).message }, 'discord interaction not answered');
    });
  }
}
