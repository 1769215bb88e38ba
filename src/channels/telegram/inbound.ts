/**
 * Telegram message -> InboundMessage (without attachments, which need downloading). Pure.
 *
 * Ids: Telegram message ids are unique per chat only, so platformMessageId is "<chatId>:<messageId>";
 * an edit gets "<chatId>:<messageId>@<edit_date>" with editOf set to the original. Forum topics are
 * their own conversation: conversationKey "<chatId>:<topicId>".
 */
import type { Message, MessageEntity, UserFromGetMe } from 'grammy/types';
import type { Attachment, InboundMessage } from '../channel.js';

export interface TelegramFile {
  fileId: string;
  kind: Attachment['kind'];
  name: string;
  mime?: string;
  size?: number;
}

export interface Normalised {
  msg: InboundMessage;
  files: TelegramFile[];
}

export function conversationKeyOf(m: Pick<Message, 'chat' | 'is_topic_message' | 'message_thread_id'>): string {
  return m.is_topic_message && m.message_thread_id !== undefined
    ? `${m.chat.id}:${m.message_thread_id}`
    : String(m.chat.id);
}

/** Splits a conversationKey back into the chat and the forum topic. */
export function parseConversationKey(key: string): { chatId: string; topicId?: number } {
  const [chatId, topic] = key.split(':');
  return topic === undefined ? { chatId: chatId! } : { chatId: chatId!, topicId: Number(topic) };
}

/** Splits a platformMessageId ("<chatId>:<messageId>[@edit]") back into its numeric message id. */
export function messageIdOf(platformMessageId: string): number | undefined {
  const m = /^-?\d+:(\d+)/.exec(platformMessageId) ?? /^(\d+)$/.exec(platformMessageId);
  return m ? Number(m[1]) : undefined;
}

function displayName(u: { first_name: string; last_name?: string; username?: string }): string {
  return [u.first_name, u.last_name].filter(Boolean).join(' ') || u.username || '';
}

function entityText(text: string, e: MessageEntity): string {
  return text.slice(e.offset, e.offset + e.length);
}

/** In a forum, every message "replies" to the topic's creation message; that is not a reply. */
function realReply(m: Message): Message | undefined {
  const r = m.reply_to_message;
  if (!r || r.forum_topic_created) return undefined;
  return r;
}

function mediaLabel(m: Message): string | undefined {
  if (m.photo) return '[photo]';
  if (m.voice) return '[voice note]';
  if (m.audio) return '[audio]';
  if (m.video || m.video_note) return '[video]';
  if (m.document) return `[file ${m.document.file_name ?? ''}]`.replace(' ]', ']');
  if (m.sticker) return `[sticker ${m.sticker.emoji ?? ''}]`.replace(' ]', ']');
  return undefined;
}

function filesOf(m: Message): TelegramFile[] {
  const files: TelegramFile[] = [];
  if (m.photo && m.photo.length > 0) {
    // Sizes come smallest first; the last is the original resolution.
    const p = m.photo[m.photo.length - 1]!;
    files.push({ fileId: p.file_id, kind: 'image', name: 'photo.jpg', mime: 'image/jpeg', size: p.file_size });
  }
  if (m.document) {
    const d = m.document;
    const kind = d.mime_type?.startsWith('image/') ? 'image' : 'document';
    files.push({ fileId: d.file_id, kind, name: d.file_name ?? 'document', mime: d.mime_type, size: d.file_size });
  }
  if (m.voice)
    files.push({
      fileId: m.voice.file_id,
      kind: 'voice',
      name: 'voice.ogg',
      mime: m.voice.mime_type ?? 'audio/ogg',
      size: m.voice.file_size,
    });
  if (m.audio)
    files.push({
      fileId: m.audio.file_id,
      kind: 'audio',
      name: m.audio.file_name ?? 'audio',
      mime: m.audio.mime_type,
      size: m.audio.file_size,
    });
  if (m.video)
    files.push({
      fileId: m.video.file_id,
      kind: 'video',
      name: m.video.file_name ?? 'video.mp4',
      mime: m.video.mime_type,
      size: m.video.file_size,
    });
  if (m.video_note)
    files.push({
      fileId: m.video_note.file_id,
      kind: 'video',
      name: 'video-note.mp4',
      mime: 'video/mp4',
      size: m.video_note.file_size,
    });
  return files;
}

/** Whether the message mentions the bot, replies to it, or is a command (possibly /cmd@bot). */
function isAddressed(m: Message, text: string, entities: MessageEntity[], me: UserFromGetMe): boolean {
  const handle = `@${me.username}`.toLowerCase();
  for (const e of entities) {
    if (e.type === 'mention' && entityText(text, e).toLowerCase() === handle) return true;
    if (e.type === 'text_mention' && e.user?.id === me.id) return true;
    if (e.type === 'bot_command' && e.offset === 0) {
      const at = entityText(text, e).split('@')[1];
      if (at === undefined || `@${at}`.toLowerCase() === handle) return true;
    }
  }
  return realReply(m)?.from?.id === me.id;
}

/** Removes the bot's own handle: "/stop@rudder_bot" -> "/stop", "@rudder_bot hi" -> "hi". */
function stripSelf(text: string, me: UserFromGetMe): string {
  const u = me.username.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text
    .replace(new RegExp(`^(/[A-Za-z0-9_]+)@${u}\\b`, 'i'), '$1')
    .replace(new RegExp(`^@${u}\\b[:,]?\\s*`, 'i'), '');
}

/** Returns undefined for messages that carry nothing for an agent (service messages, bots). */
export function normalise(m: Message, me: UserFromGetMe, edited: boolean): Normalised | undefined {
  if (m.from?.is_bot) return undefined;
  const raw = m.text ?? m.caption ?? '';
  const entities = m.entities ?? m.caption_entities ?? [];
  const files = filesOf(m);
  const label = files.length === 0 ? mediaLabel(m) : undefined;
  if (raw === '' && files.length === 0 && label === undefined) return undefined;

  const chatType = m.chat.type === 'private' ? 'direct' : 'group';
  const id = `${m.chat.id}:${m.message_id}`;
  const reply = realReply(m);
  const quotedText = m.quote?.text ?? (reply ? (reply.text ?? reply.caption ?? mediaLabel(reply) ?? '') : undefined);
  const sender = m.from
    ? { id: String(m.from.id), name: displayName(m.from) || undefined }
    : {
        id: `chat:${m.sender_chat?.id ?? m.chat.id}`,
        name: m.sender_chat && 'title' in m.sender_chat ? m.sender_chat.title : undefined,
      };

  const msg: InboundMessage = {
    channel: 'telegram',
    platformMessageId: edited ? `${id}@${m.edit_date ?? m.date}` : id,
    conversationKey: conversationKeyOf(m),
    sender,
    chatType,
    text: stripSelf(raw || label || '', me),
    sentAt: (edited ? (m.edit_date ?? m.date) : m.date) * 1000,
  };
  if (quotedText !== undefined && quotedText !== '') {
    const author = reply?.from ? displayName(reply.from) || undefined : undefined;
    msg.quoted = author ? { text: quotedText, author } : { text: quotedText };
  }
  if (chatType === 'group') msg.addressed = isAddressed(m, raw, entities, me);
  if (edited) msg.editOf = id;
  return { msg, files };
}
