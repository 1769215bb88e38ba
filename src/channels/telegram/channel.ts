/** The Telegram channel: the channel runtime with the Telegram adapter (adapter.ts). */
import { ChannelRuntime } from '../runtime/runtime.js';
import { TelegramAdapter, type TelegramChannelOptions } from './adapter.js';

export type { TelegramChannelOptions };

export class TelegramChannel extends ChannelRuntime {
  constructor(o: TelegramChannelOptions) {
    super({ name: 'telegram', logger: o.logger, adapter: (link) => new TelegramAdapter(o, link) });
  }
}
