/**
 * A reply spoken, on Telegram: sendVoice for what Telegram plays as a voice note (Ogg Opus, MP3,
 * M4A), sendAudio for other audio (WAV), in the chat's order after the text reply, retried as
 * replies are (the platform's retry_after honoured).
 */
import { type Api, InputFile } from 'grammy';
import type { MessageRef, OutboundVoice, VoiceCalls } from '../channel.js';
import { withRetry } from '../common/retry.js';
import type { SurfaceDeps } from '../runtime/adapter.js';
import { messageIdOf, parseConversationKey, placement } from './address.js';
import { isMissingReplyTarget } from './errors.js';

/** Bot API: a voice note "must be in an .OGG file encoded with OPUS, or in .MP3 format, or in .M4A format". */
const VOICE_TYPES = new Set(['audio/ogg', 'audio/mpeg', 'audio/mp4']);

export class TelegramVoice implements VoiceCalls {
  constructor(private readonly d: SurfaceDeps<Api>) {}

  async sendVoice(to: MessageRef, voice: OutboundVoice): Promise<void> {
    const { chatId, topicId } = parseConversationKey(to.conversationKey);
    const replyId = voice.replyTo ? messageIdOf(voice.replyTo) : undefined;
    const where = (reply: boolean) => placement(topicId, reply ? replyId : undefined);
    const asVoice = VOICE_TYPES.has(voice.mime);
    const send = (reply: boolean) => {
      // A fresh InputFile each time: its stream is read once per request.
      const file = new InputFile(voice.file, voice.name);
      return asVoice
        ? this.d.client().sendVoice(chatId, file, where(reply))
        : this.d.client().sendAudio(chatId, file, where(reply));
    };
    await this.d.link.inOrder(to.conversationKey, () =>
      withRetry(
        async () => {
          try {
            await send(true);
          } catch (err) {
            if (!isMissingReplyTarget(err)) throw err;
            await send(false);
          }
        },
        this.d.link.retry(asVoice ? 'sendVoice' : 'sendAudio'),
      ),
    );
  }
}
