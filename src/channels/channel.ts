/**
 * The Channel interface: one small implementation per place people talk (web, telegram, discord,
 * slack, whatsapp). The gateway, the lanes and the acknowledgement rules are the same for all.
 *
 * Ordering contract: a channel calls `sink.accept()` for each inbound message and acknowledges the
 * platform (advances an offset, answers a webhook) only after it resolves, because accept() returns
 * once the message is committed to the durable inbox. Attachments are downloaded only when
 * `sink.admits()` says the sender is let in.
 */

export type ChatType = 'direct' | 'group';

export interface Attachment {
  kind: 'image' | 'document' | 'audio' | 'voice' | 'video';
  /** Absolute path under the data dir where the file was saved. */
  path: string;
  name: string;
  mime?: string;
  size?: number;
}

export interface InboundMessage {
  /** Channel name, e.g. "web", "telegram". */
  channel: string;
  /** The platform's id for the message; (channel, platformMessageId) deduplicates redeliveries. */
  platformMessageId: string;
  /** Chat (and thread/topic) key inside the channel; a thread or topic is its own conversation. */
  conversationKey: string;
  /** For a thread that is a channel of its own (Discord): the channel it belongs to, which a group allowlist may name. */
  parentKey?: string;
  sender: { id: string; name?: string };
  chatType: ChatType;
  text: string;
  /** The message this one replies to or quotes, included as context. */
  quoted?: { text: string; author?: string };
  attachments?: Attachment[];
  /** In a group: the bot was mentioned or replied to. */
  addressed?: boolean;
  /** Set when this is an edit of an earlier message (its platformMessageId). */
  editOf?: string;
  /** Platform timestamp, epoch ms. */
  sentAt?: number;
}

export type AckKind = 'received' | 'steered' | 'queued' | 'stopped';

/** What the gateway gives back to a channel for one accepted message. */
export interface AcceptResult {
  messageId: string;
  disposition: 'turn' | 'steered' | 'queued' | 'merged' | 'command' | 'refused' | 'duplicate';
  reason?: string;
}

export interface InboundSink {
  accept(msg: InboundMessage): Promise<AcceptResult>;
  /**
   * Whether accept() would let this sender in (the same access decision, without its side
   * effects). A channel asks before it downloads a message's attachments; accept() still checks.
   */
  admits(msg: InboundMessage): boolean;
}

/** Where an acknowledgement or reply goes on the platform. */
export interface MessageRef {
  conversationKey: string;
  platformMessageId?: string;
}

export interface OutboundReply {
  /** Rudder's outbox id; a channel may use it to make delivery idempotent. */
  outboxId: string;
  text: string;
  /** Reply to this platform message when the platform supports it. */
  replyTo?: string;
  /** Marks replies written by the local fallback model. */
  fromFallback?: boolean;
}

export interface ChannelStatus {
  name: string;
  state: 'starting' | 'connected' | 'disconnected' | 'error' | 'stopped';
  detail?: string;
}

export interface Channel {
  readonly name: string;
  start(sink: InboundSink): Promise<void>;
  stop(): Promise<void>;
  /**
   * Delivers a reply; resolves once the platform confirmed it. Throws a RudderError:
   * CHANNEL_RATE_LIMITED (context.retryAfterMs) or CHANNEL_SEND_FAILED (context.permanent).
   */
  send(reply: OutboundReply, to: MessageRef): Promise<void>;
  /** Shows an acknowledgement; falls back to text where reactions fail or do not exist. */
  ack(to: MessageRef, kind: AckKind, note?: string): Promise<void>;
  /** Keeps a typing indicator alive while a turn runs. */
  typing?(to: MessageRef, on: boolean): void;
  status(): ChannelStatus;
  /** Probes the token or connection, for `rudder doctor`. */
  probe?(): Promise<{ ok: boolean; detail: string }>;
}
