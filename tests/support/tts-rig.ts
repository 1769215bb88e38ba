/** The fake text-to-speech command (fake-tts.mjs) as a tts config, and what a file it wrote says. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FAKE_TTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake-tts.mjs');

/** tts settings that run the fake command with node (format: what the file is labelled as). */
export function fakeTts(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [FAKE_TTS, '{out}'], format: 'wav', ...extra };
}

/** The text a file of the fake command was made from (its WAV INFO comment); undefined for any other bytes. */
export function spokenText(audio: Buffer): string | undefined {
  if (audio.toString('ascii', 0, 4) !== 'RIFF' || audio.toString('ascii', 8, 12) !== 'WAVE') return undefined;
  const at = audio.indexOf('ICMT', 12, 'ascii');
  if (at < 0) return undefined;
  const size = audio.readUInt32LE(at + 4);
  return audio.toString('utf8', at + 8, at + 8 + size).replace(/\0$/, '');
}
