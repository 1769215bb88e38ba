/**
 * discord.js Message -> InboundMessage (attachments are listed for download separately). Pure.
 * A thread is a channel of its own, so conversationKey is the message's channel id, which is the
 * thread's id for messages in a thread; parentKey is then the channel the thread belongs to. Message ids are global
 * snowflakes; an edit gets
 * "<id>@<editedTimestamp>" with editOf set to the original id.
 */
import { type Message, MessageFlags, type PartialMessage } from 'discord.js';
import type { InboundMessage } from '../channel.js';
import { kindFromMime, type PendingAttachment } from '../common/attachments.js';

export interface DiscordFile extends PendingAttachment {
  url: string;
}

function nameOf(m: Message | PartialMessage): string | undefined {
  const a = m.author;
  if (!a) return undefined;
  return m.member?.displayName ?? a.globalName ?? a.username ?? undefined;
}

/** Replaces user mentions with readable names and drops the bot's own mention. */
function readable(m: Message | PartialMessage, botId: string): string {
  const content = m.content ?? '';
  return content
    .replace(new RegExp(`<@!?${botId}>\\s*`, 'g'), '')
    .replace(/<@!?(\d+)>/g, (all, id: string) => {
      const u = m.mentions?.users.get(id);
      return u ? `@${u.globalName ?? u.username}` : all;
    })
    .trim();
}

export interface Normalised {
  msg: InboundMessage;
  files: DiscordFile[];
}

/**
 * Discord sends an update for link previews, embeds and pins too, with the text unchanged; only an
 * update with an edit time and new text is an edit. An uncached old message cannot be compared;
 * a repeat then gets the same id "<id>@<editedTimestamp>", which the inbox drops.
 */
export function isTextEdit(old: Message | PartialMessage, now: Message | PartialMessage): boolean {
  if (!now.editedTimestamp) return false;
  return old.partial || old.content !== now.content;
}

export function normalise(m: Message | PartialMessage, botId: string, edited: boolean): Normalised | undefined {
  if (!m.author || m.author.bot) return undefined;
  const voice = m.flags?.has(MessageFlags.IsVoiceMessage) ?? false;
  const files: DiscordFile[] = [...(m.attachments?.values() ?? [])].map((a) => ({
    url: a.url,
    name: a.name ?? 'attachment',
    kind: kindFromMime(a.contentType ?? undefined, voice),
    mime: a.contentType ?? undefined,
    size: a.size,
  }));
  const text = readable(m, botId);
  if (text === '' && files.length === 0) return undefined;

  const refId = m.reference?.messageId;
  const referenced = refId ? m.channel.messages.cache.get(refId) : undefined;
  const chatType = m.guildId ? 'group' : 'direct';
  const msg: InboundMessage = {
    channel: 'discord',
    platformMessageId: edited ? `${m.id}@${m.editedTimestamp ?? Date.now()}` : m.id,
    conversationKey: m.channelId,
    sender: { id: m.author.id, name: nameOf(m) },
    chatType,
    text: text === '' && voice ? '[voice message]' : text,
    sentAt: (edited ? m.editedTimestamp : m.createdTimestamp) ?? undefined,
  };
  const parentId = m.channel?.isThread() ? m.channel.parentId : null;
  if (parentId) msg.parentKey = parentId;
  if (referenced && (referenced.content || referenced.attachments.size > 0)) {
    const author = nameOf(referenced);
    msg.quoted = { text: referenced.content || '[attachment]', ...(author ? { author } : {}) };
  }
  if (chatType === 'group') {
    msg.addressed =
      (m.mentions?.users.has(botId) ?? false) ||
      referenced?.author?.id === botId ||
      m.mentions?.repliedUser?.id === botId;
  }
  if (edited) msg.editOf = m.id;
  return { msg, files };
}
