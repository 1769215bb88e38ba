/** The Discord channel: the channel runtime with the Discord adapter (adapter.ts). */
import { ChannelRuntime } from '../runtime/runtime.js';
import { DiscordAdapter, type DiscordChannelOptions } from './adapter.js';

export type { DiscordChannelOptions };

export class DiscordChannel extends ChannelRuntime {
  constructor(o: DiscordChannelOptions) {
    super({ name: 'discord', logger: o.logger, adapter: (link) => new DiscordAdapter(o, link) });
  }
}
