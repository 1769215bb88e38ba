/**
 * A reply spoken, on WhatsApp: a voice note (push-to-talk) when it is Ogg Opus, as WhatsApp plays
 * them, else an audio file; in the chat's order after the text reply, quoting the message it answers.
 */
import fs from 'node:fs';
import type { WASocket } from '@whiskeysockets/baileys';
import type { MessageRef, OutboundVoice, VoiceCalls } from '../channel.js';
import { withRetry } from '../common/retry.js';
import type { SurfaceDeps } from '../runtime/adapter.js';
import type { RecentMessages } from './recent.js';

export class WhatsAppVoice implements VoiceCalls {
  constructor(
    private readonly d: SurfaceDeps<WASocket>,
    private readonly recent: RecentMessages,
  ) {}

  async sendVoice(to: MessageRef, voice: OutboundVoice): Promise<void> {
    const audio = await fs.promises.readFile(voice.file);
    const ptt = voice.mime === 'audio/ogg';
    const content = { audio, mimetype: ptt ? 'audio/ogg; codecs=opus' : voice.mime, ptt };
    const quoting = this.recent.quoting(voice.replyTo);
    await this.d.link.inOrder(to.conversationKey, () =>
      withRetry(
        () => this.d.client().sendMessage(to.conversationKey, content, quoting),
        this.d.link.retry('sendMessage (voice note)'),
      ),
    );
  }
}
