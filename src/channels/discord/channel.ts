/**
 * Discord on discord.js: the gateway for inbound messages and edits, the library's REST client
 * (base URL from `restApi`) for replies, reactions and typing. Replies are Discord Markdown as
 * written, split at 2000 characters, with mentions disabled so agent output never pings anyone.
 */
import {
  Client,
  Events,
  GatewayIntentBits,
  type Message,
  MessageFlags,
  type PartialMessage,
  Partials,
  REST,
  Routes,
} from 'discord.js';
import type { DiscordConfig } from '../../config/channels-schema.js';
import { RudderError } from '../../errors.js';
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
import { ACK_EMOJI, ackText } from '../common/ack-text.js';
import { downloadTo, saveIfAdmitted } from '../common/attachments.js';
import { KeyedSerial } from '../common/ordered.js';
import { PartProgress } from '../common/part-progress.js';
import { commitWithRetry, withRetry } from '../common/retry.js';
import { splitMarkdown } from '../common/split.js';
import { TypingKeeper } from '../common/typing.js';
import { classify, describe, isBadToken, isDisallowedIntents } from './errors.js';
import { isTextEdit, type Normalised, normalise } from './inbound.js';
import { DiscordSurfaces } from './progress.js';
import { DiscordVoice } from './voice.js';

/**
 * Discord: message content is "up to 2000 characters".
 * https://discord.com/developers/docs/resources/message#create-message
 */
export const DISCORD_TEXT_LIMIT = 2000;
/** The typing indicator lasts 10 seconds or until a message is sent. */
const TYPING_INTERVAL_MS = 8_000;

export interface DiscordChannelOptions {
  config: DiscordConfig;
  dataDir: string;
  logger: Logger;
  /** How often typing is re-sent; tests shorten it. */
  typingIntervalMs?: number;
}

export class DiscordChannel implements Channel {
  readonly name = 'discord';
  private readonly cfg: DiscordConfig;
  private readonly dataDir: string;
  private readonly log: Logger;
  private client?: Client;
  /** The trimmed token, set at start: the one sent, so the one redacted. */
  private token = '';
  private state: ChannelStatus = { name: 'discord', state: 'stopped' };
  private abort = new AbortController();
  private readonly serial = new KeyedSerial();
  private readonly progress = new PartProgress();
  /** Inbound messages are committed one at a time, in gateway order. */
  private inbound: Promise<void> = Promise.resolve();
  private readonly typingKeeper: TypingKeeper;
  private readonly surfaces: DiscordSurfaces;
  readonly capabilities: ChannelCapabilities;

  constructor(o: DiscordChannelOptions) {
    this.cfg = o.config;
    this.dataDir = o.dataDir;
    this.log = o.logger.child({ channel: 'discord' });
    this.typingKeeper = new TypingKeeper({
      intervalMs: o.typingIntervalMs ?? TYPING_INTERVAL_MS,
      logger: this.log,
      send: async (to) => {
        await this.rest().post(Routes.channelTyping(to.conversationKey));
      },
    });
    const surfaceDeps = {
      rest: () => this.rest(),
      retry: (what: string) => this.retryOptions(what),
      inOrder: <T>(key: string, task: () => Promise<T>) => this.serial.run(key, task),
      log: this.log,
    };
    this.surfaces = new DiscordSurfaces(surfaceDeps);
    this.capabilities = {
      cards: this.surfaces,
      buttons: this.surfaces,
      voice: new DiscordVoice(surfaceDeps),
      textLimit: DISCORD_TEXT_LIMIT,
    };
  }

  private configuredToken(): string {
    const t = this.cfg.token?.trim();
    if (!t)
      throw new RudderError(
        'CHANNEL_CONFIG',
        'Set channels.discord.token to the bot token from the Discord developer portal.',
        { channel: 'discord', key: 'channels.discord.token' },
      );
    // Bot tokens are three dot-separated base64url parts.
    if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(t)) {
      throw new RudderError(
        'CHANNEL_CONFIG',
        'channels.discord.token does not look like a bot token; copy it again from the Bot page of the ' +
          'developer portal.',
        { channel: 'discord', key: 'channels.discord.token' },
      );
    }
    return t;
  }

  private rest(): REST {
    if (!this.client)
      throw new RudderError('CHANNEL_SEND_FAILED', 'The Discord channel is not started.', {
        channel: 'discord',
        permanent: false,
      });
    return this.client.rest;
  }

  private restOptions() {
    // retries 0 and rejectOnRateLimit: waiting and retrying happen in common/retry.ts, bounded.
    return { api: this.cfg.restApi.replace(/\/+$/, ''), retries: 0, rejectOnRateLimit: () => true };
  }

  async start(sink: InboundSink): Promise<void> {
    this.state = { name: 'discord', state: 'starting' };
    const token = (() => {
      try {
        return this.configuredToken();
      } catch (err) {
        this.state = { name: 'discord', state: 'error', detail: (err as Error).message };
        throw err;
      }
    })();
    this.token = token;
    this.abort = new AbortController();
    const client = new Client({
      intents: [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.MessageContent,
        GatewayIntentBits.DirectMessages,
      ],
      // DM channels are not cached at startup; Partials.Channel lets their messages through.
      partials: [Partials.Channel, Partials.Message],
      rest: this.restOptions(),
    });
    client.on(Events.MessageCreate, (m) => this.enqueue(sink, m, false));
    client.on(Events.MessageUpdate, (old, m) => {
      if (isTextEdit(old, m)) this.enqueue(sink, m, true);
    });
    client.on(Events.InteractionCreate, (i) => {
      if (!i.isButton()) return;
      this.surfaces
        .pressed(sink, i)
        .catch((err: unknown) => this.log.error({ err: (err as Error).message }, 'discord button press not handled'));
    });
    client.on(Events.ShardDisconnect, () => this.setState('disconnected', 'gateway closed'));
    client.on(Events.ShardReconnecting, () => this.setState('starting', 'reconnecting to the gateway'));
    client.on(Events.ShardResume, () => this.setState('connected'));
    client.on(Events.ShardReady, () => this.setState('connected'));
    client.on(Events.Error, (err) => this.log.error({ err: describe(err, token) }, 'discord client error'));
    this.client = client;
    try {
      await client.login(token);
    } catch (err) {
      await client.destroy().catch(() => undefined);
      this.client = undefined;
      const e = isBadToken(err)
        ? new RudderError(
            'CHANNEL_CONFIG',
            'channels.discord.token was rejected by Discord; reset it on the Bot page of the developer portal.',
            { channel: 'discord', key: 'channels.discord.token' },
          )
        : isDisallowedIntents(err)
          ? new RudderError(
              'CHANNEL_CONFIG',
              'Discord refused the Message Content intent: turn on "Message Content Intent" on the Bot page ' +
                'of the developer portal.',
              { channel: 'discord', key: 'channels.discord.token' },
            )
          : new RudderError(
              'CHANNEL_CONFIG',
              `Discord could not be reached at channels.discord.restApi: ${describe(err, token)}`,
              { channel: 'discord', key: 'channels.discord.restApi' },
            );
      this.state = { name: 'discord', state: 'error', detail: e.message };
      throw e;
    }
    this.setState('connected');
  }

  private setState(state: ChannelStatus['state'], detail?: string): void {
    if (this.state.state === 'stopped') return;
    const who = this.client?.user ? `${this.client.user.tag}` : undefined;
    this.state = { name: 'discord', state, detail: detail ?? who };
  }

  /**
   * discord.js does not await listeners; this chain keeps commits in arrival order. The message
   * is normalised at once: the library patches the same cached object when an edit arrives.
   */
  private enqueue(sink: InboundSink, m: Message | PartialMessage, edited: boolean): void {
    const botId = this.client?.user?.id;
    if (!botId) return;
    const now = m.partial ? undefined : normalise(m, botId, edited);
    if (!m.partial && !now) return;
    this.inbound = this.inbound.then(async () => {
      try {
        const n = now ?? (await this.fetchPartial(m, botId, edited));
        if (n) await this.accept(sink, n);
      } catch (err) {
        this.log.error(
          { err: err instanceof Error ? err.message : String(err), id: m.id },
          'discord message not committed',
        );
      }
    });
  }

  private async fetchPartial(
    m: Message | PartialMessage,
    botId: string,
    edited: boolean,
  ): Promise<Normalised | undefined> {
    const full = await m.fetch().catch(() => undefined);
    return full ? normalise(full, botId, edited) : undefined;
  }

  private async accept(sink: InboundSink, n: Normalised): Promise<void> {
    await saveIfAdmitted(
      sink,
      n.msg,
      n.files,
      { dataDir: this.dataDir, maxBytes: this.cfg.maxAttachmentMb * 1024 * 1024 },
      (f, target, maxBytes) => downloadTo(target, f.url, { maxBytes }),
    );
    await commitWithRetry('discord', () => sink.accept(n.msg), this.abort.signal);
  }

  async stop(): Promise<void> {
    this.typingKeeper.stopAll();
    this.abort.abort(new Error('discord channel stopping'));
    await this.client?.destroy();
    this.client = undefined;
    await this.inbound;
    this.state = { name: 'discord', state: 'stopped' };
  }

  send(reply: OutboundReply, to: MessageRef): Promise<void> {
    const parts = splitMarkdown(reply.text, DISCORD_TEXT_LIMIT);
    return this.serial.run(to.conversationKey, () =>
      this.progress.deliver(reply.outboxId, parts, (content, i) =>
        this.post(to.conversationKey, content, i === 0 ? reply.replyTo : undefined, i > 0),
      ),
    );
  }

  /** One message; `silent` (@silent) for the parts after a reply's first and for acknowledgements. */
  private async post(channelId: string, content: string, replyTo: string | undefined, silent: boolean): Promise<void> {
    const refId = replyTo?.split('@')[0];
    const body = {
      content,
      allowed_mentions: { parse: [], replied_user: false },
      ...(refId ? { message_reference: { message_id: refId, fail_if_not_exists: false } } : {}),
      ...(silent ? { flags: MessageFlags.SuppressNotifications } : {}),
    };
    await withRetry(
      () => this.rest().post(Routes.channelMessages(channelId), { body }),
      this.retryOptions('createMessage'),
    );
  }

  private retryOptions(what: string) {
    return {
      channel: 'discord',
      what,
      classify,
      describe: (e: unknown) => describe(e, this.token),
      signal: this.abort.signal,
      logger: this.log,
    };
  }

  async ack(to: MessageRef, kind: AckKind, note?: string, opts?: AckOptions): Promise<void> {
    const msgId = to.platformMessageId?.split('@')[0];
    if (msgId) {
      try {
        const emoji = encodeURIComponent(ACK_EMOJI[kind]);
        await this.rest().put(Routes.channelMessageOwnReaction(to.conversationKey, msgId, emoji));
        return;
      } catch (err) {
        this.log.debug(
          { err: describe(err, this.token), kind },
          'discord reaction failed; using the text acknowledgement',
        );
      }
    }
    const text = opts?.reactionOnly ? undefined : ackText(kind, note);
    if (text) await this.serial.run(to.conversationKey, () => this.post(to.conversationKey, text, msgId, true));
  }

  typing(to: MessageRef, on: boolean): void {
    if (this.client) this.typingKeeper.set(to, on);
  }

  status(): ChannelStatus {
    return { ...this.state };
  }

  async probe(): Promise<{ ok: boolean; detail: string }> {
    let token: string;
    try {
      token = this.configuredToken();
    } catch (err) {
      return { ok: false, detail: (err as Error).message };
    }
    try {
      const rest = new REST(this.restOptions()).setToken(token);
      const me = (await rest.get(Routes.user('@me'))) as { username: string };
      return { ok: true, detail: `token accepted: ${me.username}` };
    } catch (err) {
      return {
        ok: false,
        detail: isBadToken(err)
          ? 'channels.discord.token was rejected by Discord'
          : `Discord not reachable: ${describe(err, token)}`,
      };
    }
  }
}
