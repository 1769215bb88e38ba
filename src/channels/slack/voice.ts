/**
 * A reply spoken, on Slack: the audio as a file in the chat (or its thread), through the Web API's
 * external upload (files.getUploadURLExternal, the upload, files.completeUploadExternal), in the
 * chat's order after the text reply.
 */
import fs from 'node:fs';
import type { MessageRef, OutboundVoice, VoiceCalls } from '../channel.js';
import { withRetry } from '../common/retry.js';
import { parseConversationKey } from './inbound.js';
import type { SlackSurfaceDeps } from './progress.js';

export class SlackVoice implements VoiceCalls {
  constructor(private readonly d: SlackSurfaceDeps) {}

  async sendVoice(to: MessageRef, voice: OutboundVoice): Promise<void> {
    const { channel, threadTs } = parseConversationKey(to.conversationKey);
    const file = await fs.promises.readFile(voice.file);
    await this.d.inOrder(to.conversationKey, () =>
      withRetry(() => {
        const base = { channel_id: channel, file, filename: voice.name, title: 'Reply, spoken' };
        return this.d.client().filesUploadV2(threadTs ? { ...base, thread_ts: threadTs } : base);
      }, this.d.retry('files.uploadV2')),
    );
  }
}
