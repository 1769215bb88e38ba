/**
 * The Channel interface: one small implementation per place people talk (web, telegram, discord,
 * slack, whatsapp). The gateway, the lanes and the acknowledgement rules are the same for all.
 *
 * Ordering contract: a channel calls `sink.accept()` for each inbound message and acknowledges the
 * platform (advances an offset, answers a webhook) only after it resolves, because accept() returns
 * once the message is committed to the durable inbox. Attachments are downloaded only when
 * `sink.admits()` says the sender is let in.
 */

import type { Attachment, ChatType } from '../store/types.js';

export type { Attachment, ChatType };

export interface InboundMessage {
  /** Channel name, e.g. "web", "telegram". */
  channel: string;
  /** The platform's id for the message; (channel, platformMessageId) deduplicates redeliveries. */
  platformMessageId: string;
  /** Chat (and thread/topic) key inside the channel; a thread or topic is its own conversation. */
  conversationKey: string;
  /**
   * For a thread that is a channel of its own (Discord): the channel it belongs to, which a group allowlist may name.
   */
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

export interface AckOptions {
  /** A reaction or nothing: no text message (a notice answering the same message says it already). */
  reactionOnly?: boolean;
}

/** What the gateway gives back to a channel for one accepted message. */
export interface AcceptResult {
  messageId: string;
  disposition: 'turn' | 'steered' | 'queued' | 'merged' | 'command' | 'refused' | 'duplicate';
  reason?: string;
}

/** A person pressed a button Rudder put under one of its messages (a permission request, a progress card's Stop). */
export interface InboundPress {
  channel: string;
  /** The chat the button's message is in, as for messages. */
  conversationKey: string;
  sender: { id: string; name?: string };
  chatType: ChatType;
  /** The button's data, exactly as the gateway gave it (ButtonView.data). */
  data: string;
}

/** What the person who pressed is told (a toast, an ephemeral reply, a short message). */
export interface PressResult {
  /** Whether the press did something; false for a refusal or a button that no longer applies. */
  ok: boolean;
  text: string;
}

export interface InboundSink {
  accept(msg: InboundMessage): Promise<AcceptResult>;
  /**
   * Whether accept() would let this sender in (the same access decision, without its side
   * effects). A channel asks before it downloads a message's attachments; accept() still checks.
   */
  admits(msg: InboundMessage): boolean;
  /**
   * A button press: access checked like a command (owners only), answered at most once. The
   * channel shows `text` to the person who pressed, and acknowledges the platform after it resolves.
   */
  press(p: InboundPress): Promise<PressResult>;
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

/** A reply spoken: an audio file made with tts.command, sent as a voice note (or an audio file) after the text. */
export interface OutboundVoice {
  /** Rudder's outbox id (of the voice note; the text reply has its own). */
  outboxId: string;
  /** Absolute path of the audio file. */
  file: string;
  /** Its media type: audio/ogg (Ogg Opus), audio/mpeg, audio/mp4 or audio/wav. */
  mime: string;
  /** The file name the platform shows, e.g. "reply.ogg". */
  name: string;
  replyTo?: string;
}

/** A button under a message; `data` comes back in InboundPress.data (at most 64 bytes: Telegram's limit). */
export interface ButtonView {
  label: string;
  data: string;
  style?: 'primary' | 'danger';
}

/**
 * A turn's progress card, composed once by the gateway (gateway/surfaces/card-view.ts); each channel
 * renders `header` and `lines` (Markdown) with its own converter.
 */
export interface CardView {
  /** One line: "⏳ Working · 3 steps · 1m12s", or collapsed: "✓ 7 steps · 3m12s". */
  header: string;
  /** Markdown lines below the header (current step, recent steps, queue); empty once collapsed. */
  lines: string[];
  /** Buttons under the card (⏹ Stop while the turn runs); none once collapsed. */
  buttons: ButtonView[];
  /** The turn is over: this is the collapsed card. */
  final: boolean;
}

/** A permission request shown in a chat: the whole request as Markdown, split by the channel as it must. */
export interface PromptView {
  text: string;
  /** One per option the person may choose here; none once the request was answered or withdrawn. */
  buttons: ButtonView[];
  /** Once settled: who answered what, or that it was withdrawn. Shown on the message that held the buttons. */
  outcome?: string;
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
  /**
   * Shows an acknowledgement; falls back to text where reactions fail or do not exist, unless
   * `reactionOnly` (a notice answering the same message says it already).
   */
  ack(to: MessageRef, kind: AckKind, note?: string, opts?: AckOptions): Promise<void>;
  /** Keeps a typing indicator alive while a turn runs. */
  typing?(to: MessageRef, on: boolean): void;
  status(): ChannelStatus;
  /** Probes the token or connection, for `rudder doctor`. */
  probe?(): Promise<{ ok: boolean; detail: string }>;

  /** What the channel can show besides replies and acks; absent: replies only. */
  readonly capabilities?: ChannelCapabilities;
}

/**
 * What a channel can show while a turn runs. The gateway asks for a capability, never for a channel's
 * name. Live calls are tried once and never retried or queued by the channel: the gateway's progress
 * driver decides what to send next. They throw CHANNEL_RATE_LIMITED (context.retryAfterMs) or
 * CHANNEL_SEND_FAILED (context.permanent), and never hold up send().
 */
export interface ChannelCapabilities {
  /** The surface draws turns, their steps and permission requests itself from the event stream (the web page). */
  drawsTurns?: boolean;
  /**
   * send() reaches nothing outside this process: the reply is the event logged when it is marked delivered (the
   * web page). Any other channel's confirmed send is committed at once, so a crash right after it is not resent.
   */
  deliveredInStore?: boolean;
  /** Progress cards, posted and then edited in place. */
  cards?: CardCalls;
  /** The text being written, streamed as a draft (Telegram private chats). */
  drafts?: DraftCalls;
  /** Permission requests with a button per option (and other confirmations, such as /discard's). */
  buttons?: PromptCalls;
  /** Characters in one message as the platform counts them; the channel splits a longer reply itself. */
  textLimit?: number;
  /** Voice notes (or audio files): a reply to a voice note is also sent spoken, when tts.command is set. */
  voice?: VoiceCalls;
}

export interface VoiceCalls {
  /**
   * Sends the audio as a voice note where the platform has them (Telegram, WhatsApp), else as a file; resolves once
   * the platform confirmed it. Throws like send(): CHANNEL_RATE_LIMITED or CHANNEL_SEND_FAILED.
   */
  sendVoice(to: MessageRef, voice: OutboundVoice): Promise<void>;
}

export interface CardCalls {
  /** Posts a progress card as a new message; resolves with a handle for editCard. */
  postCard(to: MessageRef, card: CardView): Promise<string>;
  /** Replaces a card's content. A platform that cannot edit throws CHANNEL_SEND_FAILED with permanent set. */
  editCard?(to: MessageRef, handle: string, card: CardView): Promise<void>;
}

export interface DraftCalls {
  /** Streams the text being written as a draft; false where drafts do not work (e.g. a group). */
  draftText(to: MessageRef, draftId: number, text: string): Promise<boolean>;
}

export interface PromptCalls {
  /** Shows a request with a button per option (the whole request, split as needed); resolves with a handle. */
  askPermission(to: MessageRef, prompt: PromptView): Promise<string>;
  /** Edits the request's message to show who answered what (prompt.outcome), without buttons. */
  settlePermission?(to: MessageRef, handle: string, prompt: PromptView): Promise<void>;
}
