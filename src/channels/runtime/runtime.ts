/**
 * The chat channel runtime: one Channel made of one adapter (adapter.ts). It owns what every platform
 * does the same way: the channel's state, start and stop, replies sent in each chat's order and resumed
 * at the first part not confirmed, acknowledgements, the typing indicator, status and probe. Retrying a
 * start that failed is the gateway's (gateway/channel-start.ts), for every channel alike.
 */
import type { Logger } from '../../ops/logger.js';
import type {
  AckKind,
  AckOptions,
  Channel,
  ChannelCapabilities,
  ChannelStatus,
  InboundSink,
  MessageRef,
  OutboundReply,
} from '../channel.js';
import { ackText } from '../common/ack-text.js';
import { KeyedSerial, SerialQueue } from '../common/ordered.js';
import { PartProgress } from '../common/part-progress.js';
import type { RetryOptions } from '../common/retry.js';
import { TypingKeeper } from '../common/typing.js';
import type { ChannelAdapter, ChannelLink, ProbeResult } from './adapter.js';

export interface RuntimeOptions {
  name: string;
  logger: Logger;
  /** Builds the adapter with what the runtime lends it. */
  adapter(link: ChannelLink): ChannelAdapter;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class ChannelRuntime implements Channel {
  readonly name: string;
  readonly capabilities: ChannelCapabilities;
  private readonly log: Logger;
  private readonly adapter: ChannelAdapter;
  /** Outbound calls, one chat at a time in the order asked. */
  private readonly serial = new KeyedSerial();
  /** Inbound commits, for adapters whose platform hands messages over concurrently. */
  private readonly inbound = new SerialQueue();
  private readonly delivered = new PartProgress();
  private readonly typingKeeper?: TypingKeeper;
  /** Written here only: start, stop, a failed start, and the adapter's reports through the link. */
  private state: ChannelStatus;
  /** Aborted by stop(): retry waits end, and a connect cut short makes nothing that outlives it. */
  private abort = new AbortController();

  constructor(o: RuntimeOptions) {
    this.name = o.name;
    this.log = o.logger.child({ channel: o.name });
    this.state = { name: o.name, state: 'stopped' };
    this.adapter = o.adapter(this.link());
    this.capabilities = this.adapter.capabilities;
    const typing = this.adapter.typing;
    if (typing) {
      this.typingKeeper = new TypingKeeper({
        intervalMs: typing.intervalMs,
        send: (to) => typing.send(to),
        ...(typing.clear ? { clear: (to: MessageRef) => typing.clear!(to) } : {}),
        logger: this.log,
      });
    }
  }

  private link(): ChannelLink {
    return {
      name: this.name,
      log: this.log,
      inOrder: (key, task) => this.serial.run(key, task),
      retry: (what, attempts) => this.retryOptions(what, attempts),
      inbound: (commit) => this.inbound.run(commit),
      report: (state, detail) => {
        if (this.state.state !== 'stopped') this.state = { name: this.name, state, detail };
      },
    };
  }

  private retryOptions(what: string, attempts?: number): RetryOptions {
    return {
      channel: this.name,
      what,
      classify: (err) => this.adapter.classify(err),
      describe: (err) => this.adapter.describe(err),
      signal: this.abort.signal,
      logger: this.log,
      ...(attempts !== undefined ? { attempts } : {}),
    };
  }

  /** One attempt: connected (or waiting for a pairing) when it resolves; on a failure nothing it made is left. */
  async start(sink: InboundSink): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    this.state = { name: this.name, state: 'starting' };
    try {
      await this.adapter.connect(sink, abort.signal);
    } catch (err) {
      const stopped = abort.signal.aborted;
      abort.abort(new Error(`${this.name} channel did not start`));
      await this.adapter.disconnect().catch((e: unknown) => this.log.debug({ err: messageOf(e) }, 'cleanup failed'));
      // A stop while connecting is the reason, not an error to report.
      if (!stopped) this.state = { name: this.name, state: 'error', detail: messageOf(err) };
      throw err;
    }
    // stop() ran while connecting: what connect made after it is released too.
    if (abort.signal.aborted) await this.adapter.disconnect();
  }

  async stop(): Promise<void> {
    this.typingKeeper?.stopAll();
    this.abort.abort(new Error(`${this.name} channel stopping`));
    await this.adapter.disconnect();
    await this.inbound.idle();
    this.state = { name: this.name, state: 'stopped' };
  }

  /** Sends the reply's parts in the chat's order; a retried reply starts at the first part not confirmed. */
  async send(reply: OutboundReply, to: MessageRef): Promise<void> {
    const parts = this.adapter.render(reply.text);
    await this.serial.run(to.conversationKey, () =>
      this.delivered.deliver(reply.outboxId, parts, (part, i) =>
        this.adapter.sendPart(to, part, i, i === 0 ? reply.replyTo : undefined),
      ),
    );
  }

  /** A reaction where the platform has one; else the text, unless `reactionOnly`. */
  async ack(to: MessageRef, kind: AckKind, note?: string, opts?: AckOptions): Promise<void> {
    try {
      if (await this.adapter.react(to, kind)) return;
    } catch (err) {
      this.log.debug({ err: this.adapter.describe(err), kind }, 'reaction failed; using the text acknowledgement');
    }
    const text = opts?.reactionOnly ? undefined : ackText(kind, note);
    if (text) await this.serial.run(to.conversationKey, () => this.adapter.sendAck(to, text));
  }

  typing(to: MessageRef, on: boolean): void {
    if (this.adapter.typing?.ready()) this.typingKeeper?.set(to, on);
  }

  status(): ChannelStatus {
    return { ...this.state };
  }

  async probe(): Promise<ProbeResult> {
    try {
      return await this.adapter.probe(this.status());
    } catch (err) {
      return { ok: false, detail: messageOf(err) };
    }
  }
}
