/**
 * Baileys WAMessage -> InboundMessage. Pure. A chat's JID is its conversationKey; message ids are
 * only unique per chat, so platformMessageId is "<jid>/<id>"; an edit gets "<jid>/<id>@<time>" with
 * editOf set to the original. Sender ids are phone numbers (digits only) when WhatsApp reveals them,
 * otherwise the LID JID, so owners can be configured as phone numbers.
 */
import { jidDecode, jidNormalizedUser, normalizeMessageContent, proto, type WAMessage } from '@whiskeysockets/baileys';
import type { Attachment, InboundMessage } from '../channel.js';

export interface MediaRef {
  kind: Attachment['kind'];
  name: string;
  mime?: string;
  size?: number;
}

export interface Normalised {
  msg: InboundMessage;
  /** Media to download from the message itself (Baileys decrypts it). */
  media?: MediaRef;
}

/** Who the bot is, as WhatsApp may address it (phone-number JID and LID). */
export interface Me {
  id?: string;
  lid?: string;
}

export function platformIdOf(jid: string, id: string): string {
  return `${jid}/${id}`;
}

/** "<jid>/<id>[@time]" -> { jid, id }. */
export function parsePlatformId(platformMessageId: string): { jid: string; id: string } | undefined {
  const m = /^([^/]+)\/([^@]+)/.exec(platformMessageId);
  return m ? { jid: m[1]!, id: m[2]! } : undefined;
}

/** A phone-number JID becomes its digits; a LID stays a full JID. */
export function senderId(jid: string): string {
  const d = jidDecode(jid);
  if (d && (d.server === 's.whatsapp.net' || d.server === 'c.us')) return d.user;
  return jidNormalizedUser(jid);
}

const sameUser = (a: string | null | undefined, b: string | undefined) =>
  !!a && !!b && jidDecode(a)?.user === jidDecode(b)?.user;

type Content = proto.IMessage;

function contextOf(c: Content): proto.IContextInfo | undefined {
  return (
    c.extendedTextMessage?.contextInfo ??
    c.imageMessage?.contextInfo ??
    c.videoMessage?.contextInfo ??
    c.documentMessage?.contextInfo ??
    c.audioMessage?.contextInfo ??
    undefined
  );
}

export function textOf(c: Content | null | undefined): string {
  if (!c) return '';
  return (
    c.conversation ??
    c.extendedTextMessage?.text ??
    c.imageMessage?.caption ??
    c.videoMessage?.caption ??
    c.documentMessage?.caption ??
    ''
  );
}

/** A media message's size, when WhatsApp gave one. */
const sizeOf = (m: { fileLength?: NonNullable<Content['imageMessage']>['fileLength'] }) =>
  Number(m.fileLength ?? 0) || undefined;

function mediaOf(c: Content): MediaRef | undefined {
  const { imageMessage: i, documentMessage: d, audioMessage: a, videoMessage: v } = c;
  if (i) return { kind: 'image', name: 'image.jpg', mime: i.mimetype ?? 'image/jpeg', size: sizeOf(i) };
  if (d) {
    const kind = d.mimetype?.startsWith('image/') ? 'image' : 'document';
    return { kind, name: d.fileName ?? 'document', mime: d.mimetype ?? undefined, size: sizeOf(d) };
  }
  if (a) {
    const name = a.ptt ? 'voice.ogg' : 'audio';
    return { kind: a.ptt ? 'voice' : 'audio', name, mime: a.mimetype ?? 'audio/ogg', size: sizeOf(a) };
  }
  if (v) return { kind: 'video', name: 'video.mp4', mime: v.mimetype ?? 'video/mp4', size: sizeOf(v) };
  return undefined;
}

function label(media: MediaRef | undefined): string {
  if (!media) return '';
  return media.kind === 'voice' ? '[voice note]' : `[${media.kind}]`;
}

/** Drops the bot's own "@<number>" mention from the text. */
function stripSelf(text: string, me: Me): string {
  let out = text;
  for (const jid of [me.id, me.lid]) {
    const user = jid ? jidDecode(jid)?.user : undefined;
    if (user) out = out.split(`@${user}`).join('');
  }
  return out.replace(/\s{2,}/g, ' ').trim();
}

export function normalise(m: WAMessage, me: Me): Normalised | undefined {
  const jid = m.key.remoteJid;
  if (!jid || !m.key.id || m.key.fromMe || jid === 'status@broadcast' || jid.endsWith('@newsletter')) return undefined;
  let content = normalizeMessageContent(m.message);
  if (!content) return undefined;

  let editOf: string | undefined;
  const pm = content.protocolMessage;
  if (pm) {
    if (pm.type !== proto.Message.ProtocolMessage.Type.MESSAGE_EDIT || !pm.key?.id || !pm.editedMessage)
      return undefined;
    editOf = platformIdOf(jid, pm.key.id);
    content = normalizeMessageContent(pm.editedMessage);
    if (!content) return undefined;
  }
  if (content.reactionMessage || content.pollUpdateMessage) return undefined;

  const media = editOf ? undefined : mediaOf(content);
  const raw = textOf(content);
  if (raw === '' && !media) return undefined;

  const group = jid.endsWith('@g.us');
  const from = group ? (m.key.participantAlt ?? m.key.participant ?? '') : (m.key.remoteJidAlt ?? jid);
  const ctx = contextOf(content);
  const time = Number(m.messageTimestamp ?? 0) * 1000 || undefined;
  const msg: InboundMessage = {
    channel: 'whatsapp',
    platformMessageId: editOf ? `${editOf}@${time ?? Date.now()}` : platformIdOf(jid, m.key.id),
    conversationKey: jid,
    sender: { id: senderId(from), ...(m.pushName ? { name: m.pushName } : {}) },
    chatType: group ? 'group' : 'direct',
    text: stripSelf(raw, me) || label(media),
    ...(time ? { sentAt: time } : {}),
  };
  const quotedText = ctx?.quotedMessage
    ? textOf(normalizeMessageContent(ctx.quotedMessage)) || label(mediaOf(ctx.quotedMessage))
    : '';
  if (quotedText) msg.quoted = { text: quotedText, ...(ctx?.participant ? { author: senderId(ctx.participant) } : {}) };
  if (group) {
    const mentioned = (ctx?.mentionedJid ?? []).some((j) => sameUser(j, me.id) || sameUser(j, me.lid));
    const repliedToMe = sameUser(ctx?.participant, me.id) || sameUser(ctx?.participant, me.lid);
    msg.addressed = mentioned || repliedToMe;
  }
  if (editOf) msg.editOf = editOf;
  return { msg, media };
}
