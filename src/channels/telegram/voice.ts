/**
 * A reply spoken, on Telegram: sendVoice for what Telegram plays as a voice note (Ogg Opus, MP3,
 * M4A), sendAudio for other audio (WAV), in the chat's order after the text reply, retried as
 * replies are (the platform's retry_after honoured).
 */
import { InputFile } from 'grammy';
import type { MessageRef, OutboundVoice, VoiceCalls } from '../channel.js';
import { withRetry } from '../common/retry.js';
import { isMissingReplyTarget } from './errors.js';
import { messageIdOf, parseConversationKey } from './inbound.js';
import type { TelegramSurfaceDeps } from './progress.js';

/** Bot API: a voice note "must be in an .OGG file encoded with OPUS, or in .MP3 format, or in .M4A format". */
const VOICE_TYPES = new Set(['audio/ogg', 'audio/mpeg', 'audio/mp4']);

export class TelegramVoice implements VoiceCalls {
  constructor(private readonly d: TelegramSurfaceDeps) {}

  async sendVoice(to: MessageRef, voice: OutboundVoice): Promise<void> {
    const { chatId, topicId } = parseConversationKey(to.conversationKey);
    const replyId = voice.replyTo ? messageIdOf(voice.replyTo) : undefined;
    const where = (reply: boolean) => ({
      ...(topicId !== undefined ? { message_thread_id: topicId } : {}),
      ...(reply && replyId !== undefined
        ? { reply_parameters: { message_id: replyId, allow_sending_without_reply: true } }
        : {}),
    });
    const asVoice = VOICE_TYPES.has(voice.mime);
    const send = (reply: boolean) => {
      // A fresh InputFile each time: its stream is read once per request.
      const file = new InputFile(voice.file, voice.name);
      return asVoice
        ? this.d.api().sendVoice(chatId, file, where(reply))
        : this.d.api().sendAudio(chatId, file, where(reply));
    };
    await this.d.inOrder(to.conversationKey, () =>
      withRetry(
        async () => {
          try {
            await send(true);
          } catch (err) {
            if (!isMissingReplyTarget(err)) throw err;
            await send(false);
          }
        },
        this.d.retry(asVoice ? 'sendVoice' : 'sendAudio'),
      ),
    );
  }
}
