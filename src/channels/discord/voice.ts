/**
 * A reply spoken, on Discord: the audio as a file attached to a message (Discord's own voice
 * messages need a waveform the API does not make), in the chat's order after the text reply.
 */
import fs from 'node:fs';
import { Routes } from 'discord.js';
import type { MessageRef, OutboundVoice, VoiceCalls } from '../channel.js';
import { withRetry } from '../common/retry.js';
import type { DiscordSurfaceDeps } from './progress.js';

export class DiscordVoice implements VoiceCalls {
  constructor(private readonly d: DiscordSurfaceDeps) {}

  async sendVoice(to: MessageRef, voice: OutboundVoice): Promise<void> {
    const data = await fs.promises.readFile(voice.file);
    const refId = voice.replyTo?.split('@')[0];
    const body = {
      content: '',
      allowed_mentions: { parse: [], replied_user: false },
      ...(refId ? { message_reference: { message_id: refId, fail_if_not_exists: false } } : {}),
    };
    await this.d.inOrder(to.conversationKey, () =>
      withRetry(
        () =>
          this.d.rest().post(Routes.channelMessages(to.conversationKey), {
            body,
            files: [{ name: voice.name, data, contentType: voice.mime }],
          }),
        this.d.retry('createMessage (voice)'),
      ),
    );
  }
}
