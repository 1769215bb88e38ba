/**
 * Slack's live surfaces: the progress card (chat.postMessage, then chat.update) and permission
 * requests with Block Kit buttons, whose presses come back as block_actions over Socket Mode.
 * The presser is answered with an ephemeral message. Card calls are tried once: the gateway's
 * progress driver decides what comes next.
 */
import type { App, BlockAction, ButtonAction, webApi } from '@slack/bolt';
import type { Logger } from '../../ops/logger.js';
import type { ButtonView, CardView, InboundSink, MessageRef, PromptView } from '../channel.js';
import { cardMarkdown, promptParts } from '../common/card.js';
import { toSlackMrkdwn } from '../common/markdown/slack.js';
import { type RetryOptions, withRetry } from '../common/retry.js';
import { fitParts } from '../common/split.js';
import { conversationKeyOf, parseConversationKey } from './inbound.js';

/** A section block's text holds at most 3,000 characters. */
export const SLACK_SECTION_LIMIT = 3000;
/** Rudder's buttons: action ids "rudder:<n>", the button data in `value`. */
export const ACTION_ID = /^rudder:\d+$/;

const fit = (md: string, limit: number) => fitParts(md, limit, toSlackMrkdwn);

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

export interface SlackSurfaceDeps {
  client(): webApi.WebClient;
  retry(what: string): RetryOptions;
  inOrder<T>(key: string, task: () => Promise<T>): Promise<T>;
  log: Logger;
}

export class SlackSurfaces {
  constructor(private readonly d: SlackSurfaceDeps) {}

  private once(what: string): RetryOptions {
    return { ...this.d.retry(what), attempts: 1 };
  }

  private where(to: MessageRef) {
    const { channel, threadTs } = parseConversationKey(to.conversationKey);
    return { channel, ...(threadTs ? { thread_ts: threadTs } : {}) };
  }

  async postCard(to: MessageRef, card: CardView): Promise<string> {
    const text = fit(cardMarkdown(card), SLACK_SECTION_LIMIT)[0] ?? card.header;
    const r = await withRetry(
      () =>
        this.d.client().chat.postMessage({
          ...this.where(to),
          text,
          blocks: blocks(text, card.buttons) as never,
          unfurl_links: false,
          unfurl_media: false,
        }),
      this.once('chat.postMessage (progress card)'),
    );
    return String(r.ts);
  }

  async editCard(to: MessageRef, handle: string, card: CardView): Promise<void> {
    const text = fit(cardMarkdown(card), SLACK_SECTION_LIMIT)[0] ?? card.header;
    await withRetry(
      () =>
        this.d.client().chat.update({
          channel: this.where(to).channel,
          ts: handle,
          text,
          blocks: blocks(text, card.buttons) as never,
        }),
      this.once('chat.update (progress card)'),
    );
  }

  /** The whole request in as many messages as it takes, the buttons on the last; resolves with its ts. */
  askPermission(to: MessageRef, prompt: PromptView): Promise<string> {
    const parts = promptParts(prompt, SLACK_SECTION_LIMIT, fit);
    return this.d.inOrder(to.conversationKey, async () => {
      let last = '';
      for (const [i, text] of parts.entries()) {
        const extra = i === parts.length - 1 ? { blocks: blocks(text, prompt.buttons) as never } : {};
        const r = await withRetry(
          () =>
            this.d.client().chat.postMessage({
              ...this.where(to),
              text,
              mrkdwn: true,
              unfurl_links: false,
              unfurl_media: false,
              ...extra,
            }),
          this.d.retry('chat.postMessage (permission request)'),
        );
        last = String(r.ts);
      }
      return last;
    });
  }

  async settlePermission(to: MessageRef, handle: string, prompt: PromptView): Promise<void> {
    const text = promptParts(prompt, SLACK_SECTION_LIMIT, fit).at(-1)!;
    await withRetry(
      () =>
        this.d
          .client()
          .chat.update({ channel: this.where(to).channel, ts: handle, text, blocks: blocks(text, []) as never }),
      this.d.retry('chat.update (permission request)'),
    );
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
          .catch((err: unknown) => this.d.log.debug({ err: (err as Error).message }, 'slack press answer not shown'));
      },
    );
  }
}
