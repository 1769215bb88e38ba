/**
 * The running channels by name, and where a conversation lives: its channel and chat key. Channels
 * are registered as they are created at start; a conversation whose channel is not running has no chat.
 */
import type { Channel } from '../channels/channel.js';
import type { Store } from '../store/store.js';

export interface Chat {
  channel: Channel;
  key: string;
}

export class Chats {
  private readonly byName = new Map<string, Channel>();

  constructor(private readonly store: Store) {}

  add(channel: Channel): void {
    this.byName.set(channel.name, channel);
  }

  get(name: string): Channel | undefined {
    return this.byName.get(name);
  }

  all(): Channel[] {
    return [...this.byName.values()];
  }

  /** The running channel and chat key of a conversation. */
  of(conversationId: string): Chat | undefined {
    const conv = this.store.conversation(conversationId);
    const channel = conv && this.byName.get(conv.channel);
    return channel && conv ? { channel, key: conv.key } : undefined;
  }

  /** The chat key of a conversation even while its channel is not running (a reply stays owed then). */
  keyOf(conversationId: string): { channel: Channel | undefined; key: string } | undefined {
    const conv = this.store.conversation(conversationId);
    return conv ? { channel: this.byName.get(conv.channel), key: conv.key } : undefined;
  }
}
