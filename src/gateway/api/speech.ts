/**
 * Voice on the page: a recording sent from the composer (saved like a chat's voice note, then
 * through intake and the same speech-to-text path), and the audio of a reply for its play button
 * (tts.command, made once and kept, see replies/voice-notes.ts).
 */
import { randomUUID } from 'node:crypto';
import type { AcceptResult } from '../../channels/channel.js';
import { saveBuffer } from '../../channels/common/attachments.js';
import type { LiveConfig } from '../../config/load.js';
import { RudderError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import type { Intake } from '../intake/intake.js';
import { conversationIdOf } from '../intake/intake.js';
import { answerOf } from '../lane/texts.js';
import type { VoiceAudio, VoiceNotes } from '../replies/voice-notes.js';
import type { SpeechInfo } from './types.js';

/** File extensions of the recordings browsers make (MediaRecorder): Chromium webm, Firefox ogg, Safari mp4. */
const EXTENSIONS: Record<string, string> = {
  'audio/webm': 'webm',
  'audio/ogg': 'ogg',
  'audio/mp4': 'm4a',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/aac': 'aac',
};

export interface SpeechDeps {
  config: LiveConfig;
  store: Store;
  intake: Intake;
  voice: VoiceNotes;
  /** The data dir: a recording is saved under attachments/web/ like any channel's file. */
  dataDir: string;
}

export class PageSpeech {
  constructor(private readonly d: SpeechDeps) {}

  /** What the page offers: a record button with stt.command, play buttons with tts.command. */
  info(): SpeechInfo {
    const cfg = this.d.config.current();
    return { transcribe: !!cfg.stt?.command, speak: !!cfg.tts?.command };
  }

  /** A recording from the page's owner: saved, then accepted as a voice note (transcribed before it runs). */
  async record(
    web: string,
    key: string,
    audio: Buffer,
    mime: string,
    clientMessageId: string | undefined,
  ): Promise<AcceptResult> {
    const platformMessageId = clientMessageId ?? `web-${randomUUID()}`;
    const type = mime.split(';')[0]!.trim().toLowerCase();
    const name = `voice.${EXTENSIONS[type] ?? 'audio'}`;
    // A resend of the same recording (same clientMessageId) writes the same file and is found a duplicate.
    const saved = await saveBuffer(
      { dataDir: this.d.dataDir, channel: web, conversationKey: key, messageId: platformMessageId, name },
      audio,
    );
    return this.d.intake.accept({
      channel: web,
      platformMessageId,
      conversationKey: key,
      sender: { id: 'owner', name: 'web' },
      chatType: 'direct',
      text: '',
      attachments: [{ kind: 'voice', path: saved.path, name, mime: type, size: saved.size }],
      sentAt: Date.now(),
    });
  }

  /** The audio of a delivered reply of this conversation; NOT_FOUND for anything else. */
  async replyAudio(web: string, key: string, replyId: string): Promise<VoiceAudio> {
    const row = this.d.store.outboxRow(replyId);
    if (!row || row.conversationId !== conversationIdOf(web, key) || row.kind !== 'reply' || !row.deliveredAt)
      throw new RudderError('NOT_FOUND', `No reply "${replyId}" in this conversation.`);
    const asked = row.messageIds.map((id) => this.d.store.message(id)).filter((m) => m !== undefined);
    return this.d.voice.audio({ id: row.id, text: answerOf(row.text, asked) });
  }
}
