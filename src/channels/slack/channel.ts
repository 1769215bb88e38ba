/** The Slack channel: the channel runtime with the Slack adapter (adapter.ts). */
import { ChannelRuntime } from '../runtime/runtime.js';
import { SlackAdapter, type SlackChannelOptions } from './adapter.js';

export type { SlackChannelOptions };

export class SlackChannel extends ChannelRuntime {
  constructor(o: SlackChannelOptions) {
    super({ name: 'slack', logger: o.logger, adapter: (link) => new SlackAdapter(o, link) });
  }
}
