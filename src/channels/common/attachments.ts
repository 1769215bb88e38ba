/**
 * Saves attachments under <dataDir>/attachments/<channel>/<conversation>/<message>-<name>, so the
 * agent gets a file path. Names from the platform are reduced to safe characters; nothing can
 * escape the data dir.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Attachment, InboundMessage, InboundSink } from '../channel.js';
import { redact } from './retry.js';

export interface AttachmentTarget {
  dataDir: string;
  channel: string;
  conversationKey: string;
  messageId: string;
  /** File name as the platform gave it (or a made-up one such as "voice.ogg"). */
  name: string;
}

export const DEFAULT_MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;

/** Reduces a platform-supplied name to one safe path segment. */
export function safeSegment(s: string, fallback = 'file'): string {
  const cleaned = s
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[._]+/, '')
    .slice(0, 100);
  return cleaned === '' ? fallback : cleaned;
}

export function attachmentPath(t: AttachmentTarget): string {
  const dir = path.join(
    path.resolve(t.dataDir),
    'attachments',
    safeSegment(t.channel),
    safeSegment(t.conversationKey, 'chat'),
  );
  return path.join(dir, `${safeSegment(t.messageId, 'msg')}-${safeSegment(t.name)}`);
}

/** Writes bytes already in memory (e.g. decrypted WhatsApp media). */
export async function saveBuffer(t: AttachmentTarget, data: Uint8Array): Promise<{ path: string; size: number }> {
  const file = attachmentPath(t);
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  await fs.promises.writeFile(file, data);
  return { path: file, size: data.byteLength };
}

export interface DownloadOptions {
  headers?: Record<string, string>;
  maxBytes?: number;
  timeoutMs?: number;
}

/** Streams a URL to the attachment path; fails (and removes the partial file) past maxBytes. */
export async function downloadTo(
  t: AttachmentTarget,
  url: string,
  o: DownloadOptions = {},
): Promise<{ path: string; size: number }> {
  const maxBytes = o.maxBytes ?? DEFAULT_MAX_ATTACHMENT_BYTES;
  const res = await fetch(url, {
    headers: o.headers,
    signal: AbortSignal.timeout(o.timeoutMs ?? 120_000),
    redirect: 'follow',
  });
  if (!res.ok || !res.body) throw new Error(`download failed with HTTP ${res.status}`);
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await res.body.cancel();
    throw new Error(`attachment is ${declared} bytes, over the ${maxBytes} byte limit`);
  }
  const file = attachmentPath(t);
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  let size = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > maxBytes) cb(new Error(`attachment is over the ${maxBytes} byte limit`));
      else cb(null, chunk);
    },
  });
  try {
    await pipeline(
      Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
      limiter,
      fs.createWriteStream(file),
    );
  } catch (err) {
    await fs.promises.rm(file, { force: true });
    throw err;
  }
  return { path: file, size };
}

/** The attachment kind from a MIME type, for platforms that give only that. */
export function kindFromMime(mime: string | undefined, voice = false): Attachment['kind'] {
  if (voice) return 'voice';
  if (!mime) return 'document';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('audio/')) return 'audio';
  if (mime.startsWith('video/')) return 'video';
  return 'document';
}

/** The line added to a message's text when an attachment could not be saved; never dropped silently. */
export function unsavedNote(name: string, reason: string): string {
  return `[attachment "${name}" could not be saved: ${reason}]`;
}

/** Throws when a size is over the limit; the message becomes the unsaved note's reason. */
export function checkSize(size: number, maxBytes: number): void {
  if (size > maxBytes) throw new Error(`it is ${size} bytes, over the ${maxBytes} byte limit`);
}

/** A file a platform announced with a message; `size` is what the platform declared, if anything. */
export interface PendingAttachment {
  kind: Attachment['kind'];
  name: string;
  mime?: string;
  size?: number;
}

export interface SaveAttachmentsOptions {
  dataDir: string;
  maxBytes: number;
  /** Secrets an error may carry (a token in a file URL), kept out of the notes. */
  secrets?: Array<string | undefined>;
}

/** The platform's step: fetches one file to attachmentPath(target), within maxBytes. */
export type SaveOne<F> = (
  file: F,
  target: AttachmentTarget,
  maxBytes: number,
) => Promise<{ path: string; size: number }>;

/**
 * Saves each file into msg.attachments, one after another; a file that is too big or fails
 * becomes a note line in msg.text instead, so the agent knows it was sent.
 */
export async function saveAttachments<F extends PendingAttachment>(
  msg: InboundMessage,
  files: readonly F[],
  o: SaveAttachmentsOptions,
  save: SaveOne<F>,
): Promise<void> {
  const notes: string[] = [];
  for (const f of files) {
    try {
      if (f.size !== undefined) checkSize(f.size, o.maxBytes);
      const target: AttachmentTarget = {
        dataDir: o.dataDir,
        channel: msg.channel,
        conversationKey: msg.conversationKey,
        messageId: msg.platformMessageId,
        name: f.name,
      };
      const saved = await save(f, target, o.maxBytes);
      (msg.attachments ??= []).push({ kind: f.kind, path: saved.path, name: f.name, mime: f.mime, size: saved.size });
    } catch (err) {
      notes.push(unsavedNote(f.name, redact(err instanceof Error ? err.message : String(err), o.secrets ?? [])));
    }
  }
  if (notes.length > 0) msg.text = [msg.text, ...notes].filter(Boolean).join('\n');
}

/**
 * Saves a message's files only when the sink admits its sender, so a stranger's message never
 * makes Rudder fetch or store anything; the refusal itself comes from sink.accept().
 */
export async function saveIfAdmitted<F extends PendingAttachment>(
  sink: InboundSink,
  msg: InboundMessage,
  files: readonly F[],
  o: SaveAttachmentsOptions,
  save: SaveOne<F>,
): Promise<void> {
  if (files.length === 0 || !sink.admits(msg)) return;
  await saveAttachments(msg, files, o, save);
}

/** Deletes saved files of a message that was refused; a file already gone is no error. */
export async function discardAttachments(attachments: readonly Attachment[] | undefined): Promise<void> {
  await Promise.all((attachments ?? []).map((a) => fs.promises.rm(a.path, { force: true }).catch(() => undefined)));
}
