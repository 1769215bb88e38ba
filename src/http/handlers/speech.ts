/**
 *   GET  /api/speech                                      what the page offers (SpeechInfo)
 *   POST /api/conversations/:id/voice[?clientMessageId=]  the body is a recording (audio/*): a voice note,
 *                                                         transcribed by stt.command -> 202 SendResult
 *   GET  /api/conversations/:id/replies/:replyId/audio    a delivered reply spoken by tts.command (its audio type)
 */
import fs from 'node:fs';
import type http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { isRudderError } from '../../errors.js';
import { HttpError } from '../errors.js';
import { ok, type Route, type RouteContext } from '../route.js';
import type { SendResult, SpeechInfo } from '../wire.js';

/** A recording longer than this is refused (a minute of Opus is about half a megabyte). */
export const MAX_RECORDING_BYTES = 10 * 1024 * 1024;

async function readAudio(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_RECORDING_BYTES) {
      req.resume();
      throw new HttpError(
        'BAD_REQUEST',
        `The recording is over ${MAX_RECORDING_BYTES / 1024 / 1024} MB; send a shorter one.`,
      );
    }
    chunks.push(chunk as Buffer);
  }
  if (size === 0) throw new HttpError('BAD_REQUEST', 'The recording is empty: send the audio as the body.');
  return Buffer.concat(chunks);
}

async function record({ api, req, params, query }: RouteContext) {
  const cm = query.get('clientMessageId') ?? undefined;
  if (cm !== undefined && (cm.length === 0 || cm.length > 200))
    throw new HttpError('BAD_REQUEST', 'clientMessageId must be 1-200 characters.');
  const audio = await readAudio(req);
  return ok(
    (await api.sendVoice(params.id!, audio, String(req.headers['content-type']), cm)) satisfies SendResult,
    202,
  );
}

async function replyAudio({ api, params, res }: RouteContext) {
  let audio: Awaited<ReturnType<typeof api.replyAudio>>;
  try {
    audio = await api.replyAudio(params.id!, params.replyId!);
  } catch (err) {
    if (isRudderError(err, 'NOT_FOUND')) throw new HttpError('NOT_FOUND', err.message);
    if (isRudderError(err, 'TTS_NOT_CONFIGURED'))
      throw new HttpError('TTS_NOT_CONFIGURED', 'Replies are not spoken here: set tts.command in the config.');
    if (isRudderError(err, 'TTS_FAILED')) throw new HttpError('TTS_FAILED', err.message);
    throw err;
  }
  const stat = await fs.promises.stat(audio.file);
  res.writeHead(200, {
    'content-type': audio.mime,
    'content-length': stat.size,
    'cache-control': 'private, no-store',
  });
  await pipeline(fs.createReadStream(audio.file), res);
  return undefined;
}

export const speechRoutes: Route[] = [
  { method: 'GET', path: '/api/speech', handler: ({ api }) => ok(api.speech() satisfies SpeechInfo) },
  { method: 'POST', path: '/api/conversations/:id/voice', handler: record, body: 'audio' },
  { method: 'GET', path: '/api/conversations/:id/replies/:replyId/audio', handler: replyAudio },
];
