/**
 * Downloads Telegram files (getFile, then the file URL under apiRoot) into the data dir. A
 * self-hosted Bot API server in --local mode answers with an absolute path on its disk instead;
 * that file is copied.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Api } from 'grammy';
import type { Attachment } from '../channel.js';
import { attachmentPath, downloadTo, unsavedNote, type AttachmentTarget } from '../common/attachments.js';
import { redact } from '../common/retry.js';
import type { TelegramFile } from './inbound.js';

export interface FetchFilesOptions {
  api: Api;
  apiRoot: string;
  token: string;
  dataDir: string;
  conversationKey: string;
  messageId: string;
  maxBytes: number;
}

/** Saves every file; returns the attachments and a note line for each file that could not be saved. */
export async function fetchFiles(files: TelegramFile[], o: FetchFilesOptions): Promise<{ attachments: Attachment[]; notes: string[] }> {
  const attachments: Attachment[] = [];
  const notes: string[] = [];
  for (const f of files) {
    const target: AttachmentTarget = { dataDir: o.dataDir, channel: 'telegram', conversationKey: o.conversationKey, messageId: o.messageId, name: f.name };
    try {
      if (f.size !== undefined && f.size > o.maxBytes) throw new Error(`it is ${f.size} bytes, over the ${o.maxBytes} byte limit`);
      const info = await o.api.getFile(f.fileId);
      if (!info.file_path) throw new Error('Telegram gave no download path (files over 20 MB cannot be fetched by bots)');
      let saved: { path: string; size: number };
      if (path.isAbsolute(info.file_path) && fs.existsSync(info.file_path)) {
        const dest = attachmentPath(target);
        await fs.promises.mkdir(path.dirname(dest), { recursive: true });
        await fs.promises.copyFile(info.file_path, dest);
        saved = { path: dest, size: (await fs.promises.stat(dest)).size };
      } else {
        const url = `${o.apiRoot.replace(/\/+$/, '')}/file/bot${o.token}/${info.file_path}`;
        saved = await downloadTo(target, url, { maxBytes: o.maxBytes });
      }
      attachments.push({ kind: f.kind, path: saved.path, name: f.name, mime: f.mime, size: saved.size });
    } catch (err) {
      // The file URL holds the token; it must not reach the note or the logs.
      notes.push(unsavedNote(f.name, redact(err instanceof Error ? err.message : String(err), [o.token])));
    }
  }
  return { attachments, notes };
}
