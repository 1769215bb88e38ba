/**
 * A chat channel whose platform is slow to confirm a send: inbound messages arrive on a tiny local
 * HTTP endpoint (like a platform webhook), replies take `minMs`-`maxMs` to be confirmed and are then
 * appended to a JSON-lines file, which survives a kill -9 of the gateway and is what the invariant
 * checker reads as "what the platform received".
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  AckKind,
  Channel,
  ChannelStatus,
  InboundSink,
  MessageRef,
  OutboundReply,
} from '../../../src/channels/channel.js';

/** The slow channel's name, and so the prefix of its conversation ids ("slow:s1"). */
export const SLOW_CHANNEL = 'slow';

/** Its only sender; gateway-child.ts makes it the owner. */
export const SLOW_OWNER = 'chaos';

export interface SlowChannelOptions {
  logFile: string;
  minMs: number;
  maxMs: number;
}

export interface SlowDelivery {
  outboxId: string;
  conversationKey: string;
  text: string;
  at: number;
}

export class SlowChannel implements Channel {
  readonly name = SLOW_CHANNEL;
  private server: http.Server | undefined;
  private state: ChannelStatus['state'] = 'stopped';

  constructor(private readonly opts: SlowChannelOptions) {}

  async start(sink: InboundSink): Promise<void> {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const m = JSON.parse(body) as { key: string; id: string; text: string };
        sink
          .accept({
            channel: this.name,
            platformMessageId: m.id,
            conversationKey: m.key,
            sender: { id: SLOW_OWNER, name: SLOW_OWNER },
            chatType: 'direct',
            text: m.text,
            sentAt: Date.now(),
          })
          .then(
            (r) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(r)),
            (err: Error) => res.writeHead(500).end(err.message),
          );
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.state = 'connected';
  }

  url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r) ?? r(undefined));
  }

  async send(reply: OutboundReply, to: MessageRef): Promise<void> {
    await new Promise((r) => setTimeout(r, this.opts.minMs + Math.random() * (this.opts.maxMs - this.opts.minMs)));
    if (this.state !== 'connected') throw new Error('the slow channel is stopped');
    const line: SlowDelivery = {
      outboxId: reply.outboxId,
      conversationKey: to.conversationKey,
      text: reply.text,
      at: Date.now(),
    };
    fs.appendFileSync(this.opts.logFile, JSON.stringify(line) + '\n');
  }

  async ack(_to: MessageRef, _kind: AckKind): Promise<void> {}

  status(): ChannelStatus {
    return { name: this.name, state: this.state };
  }
}
