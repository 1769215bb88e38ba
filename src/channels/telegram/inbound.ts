/**
 * Telegram message -> InboundMessage (without attachments, which need downloading). Pure.
 * Ids are as address.ts says; an edit has editOf set to the original.
 */
import type { Message, MessageEntity, UserFromGetMe } from 'grammy/types';
import type { InboundMessage } from '../channel.js';
import type { PendingAttachment } from '../common/attachments.js';
import { conversationKeyOf } from './address.js';

export interface TelegramFile extends PendingAttachment {
  fileId: string;
}

export interface Normalised {
  msg: InboundMessage;
  files: TelegramFile[];
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

function file(
  f: { file_id: string; file_size?: number },
  kind: TelegramFile['kind'],
  name: string,
  mime?: string,
): TelegramFile {
  return { fileId: f.file_id, kind, name, mime, size: f.file_size };
}

function filesOf(m: Message): TelegramFile[] {
  const { photo, document: d, voice, audio, video } = m;
  const files = [
    // Sizes come smallest first; the last is the original resolution.
    photo?.length ? file(photo[photo.length - 1]!, 'image', 'photo.jpg', 'image/jpeg') : undefined,
    d && file(d, d.mime_type?.startsWith('image/') ? 'image' : 'document', d.file_name ?? 'document', d.mime_type),
    voice && file(voice, 'voice', 'voice.ogg', voice.mime_type ?? 'audio/ogg'),
    audio && file(audio, 'audio', audio.file_name ?? 'audio', audio.mime_type),
    video && file(video, 'video', video.file_name ?? 'video.mp4', video.mime_type),
    m.video_note && file(m.video_note, 'video', 'video-note.mp4', 'video/mp4'),
  ];
  return files.filter((f) => f !== undefined);
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
