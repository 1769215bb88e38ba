/**
 * Slack's live surfaces: the progress card (chat.postMessage, then chat.update) and permission
 * requests with Block Kit buttons, whose presses come back as block_actions over Socket Mode.
 * The presser is answered with an ephemeral message. Card calls are tried once: the gateway decides
 * what comes next.
 */
import type { App, BlockAction, ButtonAction, webApi } from '@slack/bolt';
import type { ButtonView, CardView, InboundSink, MessageRef, PromptView } from '../channel.js';
import { cardMarkdown, postParts, promptParts } from '../common/card.js';
import { toSlackMrkdwn } from '../common/markdown/slack.js';
import { withRetry } from '../common/retry.js';
import { fitParts } from '../common/split.js';
import type { SurfaceDeps } from '../runtime/adapter.js';
import { conversationKeyOf, parseConversationKey } from './inbound.js';

/**
 * Slack truncates `text` past 40,000 characters and may split messages longer than about 4,000
 * on its own (https://api.slack.com/changelog/2018-04-truncating-really-long-messages), which
 * would cut code blocks; splitting at 4,000 keeps that in Rudder's hands.
 */
export const SLACK_TEXT_LIMIT = 4000;

/** A section block's text holds at most 3,000 characters. */
export const SLACK_SECTION_LIMIT = 3000;
/** Rudder's buttons: action ids "rudder:<n>", the button data in `value`. */
export const ACTION_ID = /^rudder:\d+$/;

const fit = (md: string, limit: number) => fitParts(md, limit, toSlackMrkdwn);

/** The chat of a conversation, and its thread when it is one. */
export function where(conversationKey: string): { channel: string; thread_ts?: string } {
  const { channel, threadTs } = parseConversationKey(conversationKey);
  return { channel, ...(threadTs ? { thread_ts: threadTs } : {}) };
}

export function blocks(mrkdwn: string, buttons: ButtonView[]) {
  const section = { type: 'section', text: { type: 'mrkdwn', text: mrkdwn } };
  if (!buttons.length) return [section];
  const elements = buttons.map((b, i) => ({
    type: 'button',
    action_id: `rudder:${i}`,
    value: b.data,
    text: { type: 'plain_text', text: b.label.slice(0, 75), emoji: true },
    ...(b.style ? { style: b.style } : {}),
  }));
  return [section, { type: 'actions', elements }];
}

export class SlackSurfaces {
  constructor(private readonly d: SurfaceDeps<webApi.WebClient>) {}

  async postCard(to: MessageRef, card: CardView): Promise<string> {
    const text = fit(cardMarkdown(card), SLACK_SECTION_LIMIT)[0] ?? card.header;
    const r = await withRetry(
      () =>
        this.d.client().chat.postMessage({
          ...where(to.conversationKey),
          text,
          blocks: blocks(text, card.buttons) as never,
          unfurl_links: false,
          unfurl_media: false,
        }),
      this.d.link.retry('chat.postMessage (progress card)', 1),
    );
    return String(r.ts);
  }

  editCard(to: MessageRef, handle: string, card: CardView): Promise<void> {
    const text = fit(cardMarkdown(card), SLACK_SECTION_LIMIT)[0] ?? card.header;
    return this.update(to, handle, text, card.buttons, 'chat.update (progress card)', 1);
  }

  /** Replaces a message's text and buttons. */
  private async update(
    to: MessageRef,
    ts: string,
    text: string,
    buttons: ButtonView[],
    what: string,
    attempts?: number,
  ): Promise<void> {
    const { channel } = where(to.conversationKey);
    await withRetry(
      () => this.d.client().chat.update({ channel, ts, text, blocks: blocks(text, buttons) as never }),
      this.d.link.retry(what, attempts),
    );
  }

  /** The whole request in as many messages as it takes, the buttons on the last; resolves with its ts. */
  askPermission(to: MessageRef, prompt: PromptView): Promise<string> {
    const parts = promptParts(prompt, SLACK_SECTION_LIMIT, fit);
    return postParts(this.d.link, to, parts, async (text, _i, last) => {
      const extra = last ? { blocks: blocks(text, prompt.buttons) as never } : {};
      const r = await withRetry(
        () =>
          this.d.client().chat.postMessage({
            ...where(to.conversationKey),
            text,
            mrkdwn: true,
            unfurl_links: false,
            unfurl_media: false,
            ...extra,
          }),
        this.d.link.retry('chat.postMessage (permission request)'),
      );
      return String(r.ts);
    });
  }

  settlePermission(to: MessageRef, handle: string, prompt: PromptView): Promise<void> {
    const text = promptParts(prompt, SLACK_SECTION_LIMIT, fit).at(-1)!;
    return this.update(to, handle, text, [], 'chat.update (permission request)');
  }

  /** Presses of Rudder's buttons go to the gateway; the presser alone sees the answer. */
  listen(app: App, sink: InboundSink): void {
    app.action<BlockAction<ButtonAction>>(
      { type: 'block_actions', action_id: ACTION_ID },
      async ({ ack, body, action }) => {
        await ack();
        const channel = body.channel?.id ?? body.container?.channel_id;
        if (!channel) return;
        const threadTs = (body.message as { thread_ts?: string } | undefined)?.thread_ts;
        const result = await sink.press({
          channel: 'slack',
          conversationKey: conversationKeyOf(channel, threadTs),
          sender: { id: body.user.id, ...(body.user.name ? { name: body.user.name } : {}) },
          chatType: channel.startsWith('D') ? 'direct' : 'group',
          data: action.value ?? '',
        });
        void this.d
          .client()
          .chat.postEphemeral({
            channel,
            user: body.user.id,
            text: result.text,
            ...(threadTs ? { thread_ts: threadTs } : {}),
          })
          .catch((err: unknown) =>
            this.d.link.log.debug({ err: (err as Error).message }, 'slack press answer not shown'),
          );
      },
    );
  }
}
