/**
 * Replies spoken (tts.command): the audio of a reply, made once per outbox row into the data dir's
 * voice/ folder and kept there, so a delivery retried after a crash or a second play on the page
 * does not run the command again. Concurrent askers for the same reply share one run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MARK_VAR, newMark } from '../../agents/common/orphans.js';
import { mimeOf, speakable, synthesize } from '../../channels/speech.js';
import type { TtsConfig } from '../../config/channels-schema.js';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { OutboxRow } from '../../store/types.js';

export interface VoiceAudio {
  file: string;
  mime: string;
  /** The name a platform shows. */
  name: string;
}

export interface VoiceNotesDeps {
  /** Where the audio files go (<data dir>/voice). */
  dir: string;
  /** tts, read when a reply is to be spoken; undefined: replies are not spoken. */
  tts(): TtsConfig | undefined;
  log: Logger;
  /** The data dir's process mark: a command a crashed gateway left running is killed at the next start. */
  markPrefix: string;
}

/** Audio files older than this are removed at start (the page's event log keeps a week too). */
export const VOICE_RETENTION_MS = 7 * 24 * 3600_000;

export class VoiceNotes {
  private readonly making = new Map<string, Promise<VoiceAudio>>();
  /** Stops a command still running when the gateway stops: nothing outlives it. */
  private readonly stopping = new AbortController();

  constructor(private readonly d: VoiceNotesDeps) {}

  /** Whether replies are spoken at all (tts.command is set). */
  enabled(): boolean {
    return !!this.d.tts();
  }

  /** The audio of this reply: the file made before, or made now. TTS_NOT_CONFIGURED, TTS_FAILED. */
  audio(row: Pick<OutboxRow, 'id' | 'text'>): Promise<VoiceAudio> {
    const tts = this.d.tts();
    if (!tts)
      return Promise.reject(
        new RudderError('TTS_NOT_CONFIGURED', undefined, { setting: 'tts.command', outboxId: row.id }),
      );
    const file = path.join(this.d.dir, `${row.id.replace(/[^A-Za-z0-9_-]/g, '_')}.${tts.format}`);
    const audio: VoiceAudio = { file, mime: mimeOf(tts), name: `reply.${tts.format}` };
    const pending = this.making.get(file);
    if (pending !== undefined) return pending;
    const made = (async () => {
      if (await exists(file)) return audio;
      await fs.promises.mkdir(this.d.dir, { recursive: true, mode: 0o700 });
      // Written beside, then renamed: a crash mid-run never leaves half a file under the reply's name.
      const partial = `${file}.partial-${process.pid}`;
      const t0 = Date.now();
      try {
        await synthesize(speakable(row.text, tts.maxChars), tts, partial, {
          signal: this.stopping.signal,
          env: { ...process.env, [MARK_VAR]: newMark(this.d.markPrefix) },
        });
        await fs.promises.rename(partial, file);
      } finally {
        await fs.promises.rm(partial, { force: true });
      }
      this.d.log.info({ outboxId: row.id, ms: Date.now() - t0 }, 'reply spoken with tts.command');
      return audio;
    })().finally(() => this.making.delete(file));
    this.making.set(file, made);
    return made;
  }

  /** Stops any text-to-speech command still running (the gateway stops). */
  stop(): void {
    this.stopping.abort();
  }

  /** Removes audio files older than `ms` (at start). */
  async prune(ms = VOICE_RETENTION_MS): Promise<number> {
    const names = await fs.promises.readdir(this.d.dir).catch(() => [] as string[]);
    let n = 0;
    for (const name of names) {
      const file = path.join(this.d.dir, name);
      const st = await fs.promises.stat(file).catch(() => undefined);
      if (st?.isFile() && Date.now() - st.mtimeMs > ms) {
        await fs.promises.rm(file, { force: true });
        n++;
      }
    }
    return n;
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.promises.stat(file).then(
    (s) => s.isFile() && s.size > 0,
    () => false,
  );
}
