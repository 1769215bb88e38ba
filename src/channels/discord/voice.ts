/**
 * A reply spoken, on Discord: the audio as a file attached to a message (Discord's own voice
 * messages need a waveform the API does not make), in the chat's order after the text reply.
 */
import fs from 'node:fs';
import { type REST, Routes } from 'discord.js';
import type { MessageRef, OutboundVoice, VoiceCalls } from '../channel.js';
import { withRetry } from '../common/retry.js';
import type { SurfaceDeps } from '../runtime/adapter.js';
import { messageBody } from './surface.js';

export class DiscordVoice implements VoiceCalls {
  constructor(private readonly d: SurfaceDeps<REST>) {}

  async sendVoice(to: MessageRef, voice: OutboundVoice): Promise<void> {
    const data = await fs.promises.readFile(voice.file);
    const body = messageBody('', voice.replyTo);
    await this.d.link.inOrder(to.conversationKey, () =>
      withRetry(
        () =>
          this.d.client().post(Routes.channelMessages(to.conversationKey), {
            body,
            files: [{ name: voice.name, data, contentType: voice.mime }],
          }),
        this.d.link.retry('createMessage (voice)'),
      ),
    );
  }
}
