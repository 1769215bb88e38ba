/** Message rows for the lane's pure deciders: only what a decider reads is meaningful. */
import type { MessageRow } from '../../src/store/types.js';

export function row(id: string, over: Partial<MessageRow> = {}): MessageRow {
  return {
    seq: 1,
    id,
    conversationId: 'web:c',
    channel: 'web',
    platformMessageId: `p-${id}`,
    senderId: 'owner',
    text: id,
    extra: {},
    sentAt: null,
    receivedAt: 1_000,
    state: 'accepted',
    reason: null,
    wasQueued: false,
    attempts: 0,
    turnId: null,
    retryAt: null,
    heldFor: null,
    ...over,
  };
}
