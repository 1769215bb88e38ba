/**
 * The adapter interface: what a source of messages plugs into the channel runtime (runtime.ts) with.
 * The runtime does what every chat platform does the same way: the channel's state, start and stop,
 * replies in order and resumed part by part, acknowledgements (a reaction, else a quiet text), the
 * typing indicator, status and probe. An adapter holds its client and what only its platform knows:
 * how to connect, how what arrives becomes an InboundMessage, its send, reaction and typing calls, and
 * how its errors read. Adding a platform (or a webhook, a schedule) is one adapter and one entry in
 * registry.ts.
 */
import type { Logger } from '../../ops/logger.js';
import type { AckKind, ChannelCapabilities, ChannelStatus, InboundSink, MessageRef } from '../channel.js';
import type { RetryOptions, Verdict } from '../common/retry.js';

/** What `rudder doctor` is told about a channel. */
export interface ProbeResult {
  ok: boolean;
  detail: string;
}

/**
 * What the runtime lends its adapter, built before the adapter: its logger, the chat's order, its
 * retry options, its inbound queue and its state transitions. The runtime owns all of it; an adapter
 * only asks.
 */
export interface ChannelLink {
  readonly name: string;
  /** The channel's logger (bound to its name). */
  readonly log: Logger;
  /** Runs a platform call in the chat's order: after the replies, acks and prompts asked for before it. */
  inOrder<T>(conversationKey: string, task: () => Promise<T>): Promise<T>;
  /**
   * Options for common/retry.ts withRetry: this channel's name, the adapter's classify and describe, and the
   * signal that ends waits when the channel stops. `attempts: 1` for a live call the gateway decides about.
   */
  retry(what: string, attempts?: number): RetryOptions;
  /**
   * Commits inbound messages one at a time, in arrival order, for a platform that hands them over
   * concurrently; resolves or rejects with the commit. stop() waits until the queue is empty.
   */
  inbound<T>(commit: () => Promise<T>): Promise<T>;
  /** The connection changed (connected, dropped, reconnecting, pairing); ignored once the channel stopped. */
  report(state: ChannelStatus['state'], detail?: string): void;
}

/** A typing indicator the platform shows for a few seconds, sent again while a turn runs (common/typing.ts). */
export interface TypingCalls {
  /** How often it is sent: a little under the time the platform shows it. */
  intervalMs: number;
  /** Whether the client can send it now (typing asked for before is otherwise ignored). */
  ready(): boolean;
  send(to: MessageRef): Promise<void>;
  /** Clears it, where the platform can (WhatsApp "paused"). */
  clear?(to: MessageRef): Promise<void>;
}

export interface ChannelAdapter {
  /** What the platform shows besides replies (cards, drafts, buttons, voice); see Channel.capabilities. */
  readonly capabilities: ChannelCapabilities;
  /** Absent where the platform has no typing indicator for bots. */
  readonly typing?: TypingCalls;
  /**
   * Makes the client, starts taking messages (each one to `sink`, committed before the platform is
   * acknowledged) and reports 'connected' through the link once it is (later, for a pairing). Throws a
   * RudderError CHANNEL_CONFIG naming the setting to fix; the runtime then calls disconnect(). `signal`
   * aborts when the channel stops.
   */
  connect(sink: InboundSink, signal: AbortSignal): Promise<void>;
  /** Releases the client and all connect() made, also after a connect that failed or was cut short. */
  disconnect(): Promise<void>;
  /** A reply's Markdown as the platform's messages, each within its limit. */
  render(markdown: string): string[];
  /**
   * Sends one of a reply's messages, retried (link.retry); resolves once the platform confirmed it.
   * `replyTo` is set on the first only; the ones after it do not ring where the platform can say so.
   */
  sendPart(to: MessageRef, part: string, index: number, replyTo: string | undefined): Promise<void>;
  /** Shows an acknowledgement as a reaction; false where there is none for it; throws when the platform refused. */
  react(to: MessageRef, kind: AckKind): Promise<boolean>;
  /** Sends an acknowledgement's text, quietly and retried, where the reaction did not do. */
  sendAck(to: MessageRef, text: string): Promise<void>;
  /**
   * Checks the token or the connection for `rudder doctor`; `status` is the channel's now. A throw (a missing
   * token) reads as not ok, with its message.
   */
  probe(status: ChannelStatus): Promise<ProbeResult>;
  /** Whether a failed platform call is retried, waited on or given up (common/retry.ts). */
  classify(err: unknown): Verdict;
  /** An error as text for logs and RudderErrors; never holds a token. */
  describe(err: unknown): string;
}

/** What a platform's surfaces (cards, drafts, prompts, voice) are built with: the link and the adapter's client. */
export interface SurfaceDeps<Client> {
  link: ChannelLink;
  /** The client; throws CHANNEL_SEND_FAILED (not permanent) while the channel is not started or connected. */
  client(): Client;
}
