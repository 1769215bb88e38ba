/**
 * Fetches one Telegram file (getFile, then the file URL under apiRoot) into the data dir. A
 * self-hosted Bot API server in --local mode answers with an absolute path on its disk instead;
 * that file is copied.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Api } from 'grammy';
import { type AttachmentTarget, attachmentPath, checkSize, downloadTo } from '../common/attachments.js';
import type { TelegramFile } from './inbound.js';

export interface FileSource {
  api: Api;
  apiRoot: string;
  /** Part of the file URL: callers keep it out of notes and logs. */
  token: string;
}

export async function fetchFile(
  f: TelegramFile,
  target: AttachmentTarget,
  maxBytes: number,
  o: FileSource,
): Promise<{ path: string; size: number }> {
  const info = await o.api.getFile(f.fileId);
  if (!info.file_path) throw new Error('Telegram gave no download path (files over 20 MB cannot be fetched by bots)');
  if (path.isAbsolute(info.file_path) && fs.existsSync(info.file_path))
    return copyLocal(info.file_path, target, maxBytes);
  const url = `${o.apiRoot.replace(/\/+$/, '')}/file/bot${o.token}/${info.file_path}`;
  return downloadTo(target, url, { maxBytes });
}

async function copyLocal(
  source: string,
  target: AttachmentTarget,
  maxBytes: number,
): Promise<{ path: string; size: number }> {
  // Updates may omit file_size; the file on the server's disk is measured before copying.
  const { size } = await fs.promises.stat(source);
  checkSize(size, maxBytes);
  const dest = attachmentPath(target);
  await fs.promises.mkdir(path.dirname(dest), { recursive: true });
  await fs.promises.copyFile(source, dest);
  return { path: dest, size };
}
