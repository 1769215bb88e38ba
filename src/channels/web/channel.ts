/**
 * The built-in web channel, as the gateway delivers to it: a page draws turns and permission
 * requests itself from the event stream, and a delivered reply is its 'reply' event (logged once per
 * outbox row), so send() only checks that the page's server runs. What the page sends comes in
 * through the HTTP API (src/http), which hands it to intake like any channel's message.
 */

import type { AckKind, Channel, ChannelCapabilities, ChannelStatus, MessageRef, OutboundReply } from '../channel.js';
import { WEB } from './name.js';

export class WebChannel implements Channel {
  readonly name = WEB;
  readonly capabilities: ChannelCapabilities = { drawsTurns: true, deliveredInStore: true };

  /** `serving` says whether the HTTP server runs; `detail` its address. */
  constructor(private readonly server: { serving(): boolean; detail(): string }) {}

  async start(): Promise<void> {
    // The HTTP server starts on its own, before the chat channels.
  }

  async stop(): Promise<void> {
    // The HTTP server stops on its own.
  }

  async send(_reply: OutboundReply, _to: MessageRef): Promise<void> {
    if (!this.server.serving()) throw new Error('the web channel is not running');
  }

  async ack(_to: MessageRef, _kind: AckKind): Promise<void> {
    // The page shows acknowledgements from the 'ack' events on the bus.
  }

  status(): ChannelStatus {
    return this.server.serving()
      ? { name: this.name, state: 'connected', detail: this.server.detail() }
      : { name: this.name, state: 'stopped' };
  }
}
