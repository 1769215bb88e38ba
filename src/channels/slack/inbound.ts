/**
 * Slack message event -> InboundMessage. Pure. A thread is its own conversation:
 * conversationKey "<channel>:<thread_ts>"; top-level messages use the channel id. Message ts values
 * are unique per channel only, so platformMessageId is "<channel>:<ts>"; an edit gets
 * "<channel>:<ts>@<edited ts>" with editOf set to the original.
 */
import type { InboundMessage } from '../channel.js';
import { kindFromMime, type PendingAttachment } from '../common/attachments.js';

/** The fields of a Slack `message` event Rudder reads. https://api.slack.com/events/message */
export interface SlackMessageEvent {
  type: 'message';
  subtype?: string;
  channel: string;
  channel_type?: 'im' | 'mpim' | 'channel' | 'group' | 'app_home';
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  parent_user_id?: string;
  files?: SlackFile[];
  edited?: { user?: string; ts: string };
  /** For subtype "message_changed": the message after the edit. */
  message?: Omit<SlackMessageEvent, 'type' | 'channel'> & { type?: string };
}

export interface SlackFile {
  id: string;
  name?: string;
  title?: string;
  mimetype?: string;
  filetype?: string;
  size?: number;
  url_private?: string;
  url_private_download?: string;
  /** "slack_audio" for audio clips recorded in Slack. */
  subtype?: string;
}

export interface PendingFile extends PendingAttachment {
  url: string;
}

export interface Normalised {
  msg: InboundMessage;
  files: PendingFile[];
  /** The thread root's ts when this message is a reply inside a thread (its text is the quote). */
  threadRoot?: string;
}

/** Subtypes that carry a person's words; joins, topic changes and bot posts are not messages. */
const CONTENT_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast', 'me_message', 'message_changed']);

export function conversationKeyOf(channel: string, threadTs: string | undefined): string {
  return threadTs ? `${channel}:${threadTs}` : channel;
}

export function parseConversationKey(key: string): { channel: string; threadTs?: string } {
  const i = key.indexOf(':');
  return i < 0 ? { channel: key } : { channel: key.slice(0, i), threadTs: key.slice(i + 1) };
}

/** "<channel>:<ts>[@edit]" -> the message ts. */
export function tsOf(platformMessageId: string): string | undefined {
  const m = /^[^:]+:([\d.]+)/.exec(platformMessageId);
  return m?.[1];
}

/** Slack markup to plain text: links, mentions and the three escaped characters. */
export function plainText(text: string, botUserId: string): string {
  return text
    .replace(new RegExp(`<@${botUserId}(\\|[^>]*)?>\\s*`, 'g'), '')
    .replace(/<@([A-Z0-9]+)(?:\|([^>]+))?>/g, (_m, id: string, name?: string) => `@${name ?? id}`)
    .replace(/<#([A-Z0-9]+)(?:\|([^>]*))?>/g, (_m, id: string, name?: string) => `#${name || id}`)
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, '@$1')
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, (_m, url: string, label: string) =>
      label === url ? url : `${label} (${url})`,
    )
    .replace(/<((?:https?|mailto):[^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

export function normalise(ev: SlackMessageEvent, botUserId: string): Normalised | undefined {
  if (!CONTENT_SUBTYPES.has(ev.subtype)) return undefined;
  const edited = ev.subtype === 'message_changed';
  const body = edited ? ev.message : ev;
  if (!body || body.bot_id || !body.user || body.user === botUserId) return undefined;
  // Slack also reports a thread's reply count changing as message_changed; only text edits count.
  if (edited && !body.edited) return undefined;

  const files: PendingFile[] = (body.files ?? [])
    .filter((f) => f.url_private_download ?? f.url_private)
    .map((f) => ({
      url: (f.url_private_download ?? f.url_private)!,
      name: f.name ?? f.title ?? `${f.id}.${f.filetype ?? 'bin'}`,
      kind: kindFromMime(f.mimetype, f.subtype === 'slack_audio'),
      mime: f.mimetype,
      size: f.size,
    }));
  const raw = body.text ?? '';
  const text = plainText(raw, botUserId);
  if (text === '' && files.length === 0) return undefined;

  const id = `${ev.channel}:${body.ts}`;
  const direct = ev.channel_type === 'im';
  const threadTs = body.thread_ts;
  const msg: InboundMessage = {
    channel: 'slack',
    platformMessageId: edited ? `${id}@${body.edited!.ts}` : id,
    conversationKey: conversationKeyOf(ev.channel, threadTs),
    sender: { id: body.user },
    chatType: direct ? 'direct' : 'group',
    text: text === '' && files.some((f) => f.kind === 'voice') ? '[voice note]' : text,
    sentAt: Math.round(Number(edited ? body.edited!.ts : body.ts) * 1000),
  };
  if (!direct) msg.addressed = raw.includes(`<@${botUserId}`) || body.parent_user_id === botUserId;
  if (edited) msg.editOf = id;
  return { msg, files, threadRoot: threadTs && threadTs !== body.ts ? threadTs : undefined };
}
