/**
 * A reply spoken, on Slack: the audio as a file in the chat (or its thread), through the Web API's
 * external upload (files.getUploadURLExternal, the upload, files.completeUploadExternal), in the
 * chat's order after the text reply.
 */
import fs from 'node:fs';
import type { webApi } from '@slack/bolt';
import type { MessageRef, OutboundVoice, VoiceCalls } from '../channel.js';
import { withRetry } from '../common/retry.js';
import type { SurfaceDeps } from '../runtime/adapter.js';
import { parseConversationKey } from './inbound.js';

export class SlackVoice implements VoiceCalls {
  constructor(private readonly d: SurfaceDeps<webApi.WebClient>) {}

  async sendVoice(to: MessageRef, voice: OutboundVoice): Promise<void> {
    const { channel, threadTs } = parseConversationKey(to.conversationKey);
    const file = await fs.promises.readFile(voice.file);
    await this.d.link.inOrder(to.conversationKey, () =>
      withRetry(() => {
        const base = { channel_id: channel, file, filename: voice.name, title: 'Reply, spoken' };
        return this.d.client().filesUploadV2(threadTs ? { ...base, thread_ts: threadTs } : base);
      }, this.d.link.retry('files.uploadV2')),
    );
  }
}
