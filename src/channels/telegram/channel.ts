/**
 * Telegram on grammY: long polling by default, webhook as an option, `apiRoot` from the config
 * (a self-hosted Bot API server or a proxy). Replies go out as HTML, split at 4096 characters.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { Api, Bot } from 'grammy';
import type { Message } from 'grammy/types';
import type { TelegramConfig } from '../../config/channels-schema.js';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import { registerSecret } from '../../ops/redact.js';
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
import { saveIfAdmitted } from '../common/attachments.js';
import { htmlToText, telegramVisibleLength, toTelegramHtml } from '../common/markdown/telegram.js';
import { KeyedSerial } from '../common/ordered.js';
import { PartProgress } from '../common/part-progress.js';
import { withRetry } from '../common/retry.js';
import { fitParts } from '../common/split.js';
import { TypingKeeper } from '../common/typing.js';
import { classify, describe, isBadToken, isEntityError, isMissingReplyTarget } from './errors.js';
import { fetchFile } from './files.js';
import { FloodHold } from './flood.js';
import { messageIdOf, normalise, parseConversationKey } from './inbound.js';
import { ALLOWED_UPDATES, grammySignal, poll } from './polling.js';
import { TELEGRAM_TEXT_LIMIT, TelegramSurfaces } from './progress.js';
import { TelegramVoice } from './voice.js';
import { closeServer, startWebhookServer } from './webhook.js';

/** Telegram shows "typing…" for 5 seconds; re-sent a little before it fades. */
const TYPING_INTERVAL_MS = 4_000;
const TOKEN_FORMAT = /^\d+:[A-Za-z0-9_-]{20,}$/;

export interface TelegramChannelOptions {
  config: TelegramConfig;
  dataDir: string;
  logger: Logger;
  /** How often typing is re-sent; tests shorten it. */
  typingIntervalMs?: number;
}

/** Where a message goes in its chat: the forum topic, and the message it answers. */
function placement(topicId: number | undefined, replyId?: number) {
  return {
    ...(topicId !== undefined ? { message_thread_id: topicId } : {}),
    ...(replyId !== undefined ? { reply_parameters: { message_id: replyId, allow_sending_without_reply: true } } : {}),
  };
}

export class TelegramChannel implements Channel {
  readonly name = 'telegram';
  private readonly cfg: TelegramConfig;
  private readonly dataDir: string;
  private readonly log: Logger;
  private bot?: Bot;
  /** The trimmed token, set at start: the one sent, so the one redacted. */
  private token = '';
  private state: ChannelStatus = { name: 'telegram', state: 'stopped' };
  private abort = new AbortController();
  private polling?: Promise<number>;
  private server?: http.Server;
  private readonly serial = new KeyedSerial();
  private readonly progress = new PartProgress();
  /** A 429's retry_after holds every call to that chat, the typing indicator included. */
  private readonly flood = new FloodHold();
  private readonly typingKeeper: TypingKeeper;
  private readonly surfaces: TelegramSurfaces;
  readonly capabilities: ChannelCapabilities;

  constructor(o: TelegramChannelOptions) {
    this.cfg = o.config;
    this.dataDir = o.dataDir;
    this.log = o.logger.child({ channel: 'telegram' });
    const surfaceDeps = {
      api: () => this.api(),
      retry: (what: string) => this.retryOptions(what),
      inOrder: <T>(key: string, task: () => Promise<T>) => this.serial.run(key, task),
      log: this.log,
      describe: (err: unknown) => describe(err, this.token),
    };
    this.surfaces = new TelegramSurfaces(surfaceDeps);
    this.capabilities = {
      cards: this.surfaces,
      drafts: this.surfaces,
      buttons: this.surfaces,
      textLimit: TELEGRAM_TEXT_LIMIT,
      voice: new TelegramVoice(surfaceDeps),
    };
    this.typingKeeper = new TypingKeeper({
      intervalMs: o.typingIntervalMs ?? TYPING_INTERVAL_MS,
      logger: this.log,
      send: async (to) => {
        const { chatId, topicId } = parseConversationKey(to.conversationKey);
        await this.api().sendChatAction(chatId, 'typing', placement(topicId));
      },
    });
  }

  /** The token, or a CHANNEL_CONFIG error naming the key when it is missing or malformed. */
  private configuredToken(): string {
    const t = this.cfg.token?.trim();
    if (!t)
      throw new RudderError('CHANNEL_CONFIG', 'Set channels.telegram.token to the bot token from @BotFather.', {
        channel: 'telegram',
        key: 'channels.telegram.token',
      });
    if (!TOKEN_FORMAT.test(t)) {
      throw new RudderError(
        'CHANNEL_CONFIG',
        'channels.telegram.token does not look like a bot token (digits, a colon, then letters); copy it ' +
          'again from @BotFather.',
        { channel: 'telegram', key: 'channels.telegram.token' },
      );
    }
    return t;
  }

  /** grammY appends "/bot<token>/<method>"; a trailing slash would double it. */
  private apiRoot(): string {
    return this.cfg.apiRoot.replace(/\/+$/, '');
  }

  private api(): Api {
    if (!this.bot)
      throw new RudderError('CHANNEL_SEND_FAILED', 'The Telegram channel is not started.', {
        channel: 'telegram',
        permanent: false,
      });
    return this.bot.api;
  }

  async start(sink: InboundSink): Promise<void> {
    this.state = { name: 'telegram', state: 'starting' };
    try {
      await this.startInner(sink);
    } catch (err) {
      if (this.server) await closeServer(this.server);
      this.server = undefined;
      this.bot = undefined;
      this.state = { name: 'telegram', state: 'error', detail: err instanceof Error ? err.message : String(err) };
      throw err;
    }
  }

  private async startInner(sink: InboundSink): Promise<void> {
    const token = this.configuredToken();
    this.token = token;
    if (this.cfg.mode === 'webhook' && !this.cfg.webhook) {
      throw new RudderError(
        'CHANNEL_CONFIG',
        'channels.telegram.mode is "webhook" but channels.telegram.webhook.url is not set.',
        { channel: 'telegram', key: 'channels.telegram.webhook.url' },
      );
    }
    this.abort = new AbortController();
    const bot = new Bot(token, { client: { apiRoot: this.apiRoot() } });
    bot.api.config.use(this.flood.transformer);
    try {
      await bot.init(grammySignal(this.abort.signal));
    } catch (err) {
      if (isBadToken(err)) {
        throw new RudderError(
          'CHANNEL_CONFIG',
          'channels.telegram.token was rejected by Telegram; check it with @BotFather.',
          { channel: 'telegram', key: 'channels.telegram.token' },
        );
      }
      throw new RudderError(
        'CHANNEL_CONFIG',
        `Telegram could not be reached at channels.telegram.apiRoot: ${describe(err, token)}`,
        { channel: 'telegram', key: 'channels.telegram.apiRoot' },
      );
    }
    bot.on(['message', 'edited_message'], async (ctx) => {
      const edited = ctx.editedMessage !== undefined;
      const m = (ctx.editedMessage ?? ctx.message) as Message;
      await this.accept(sink, bot, m, edited);
    });
    // A press is answered after the gateway decided (at most once), before the offset moves on.
    bot.on('callback_query:data', (ctx) => this.surfaces.pressed(sink, ctx.callbackQuery));
    this.bot = bot;

    if (this.cfg.mode === 'webhook' && this.cfg.webhook) {
      const w = this.cfg.webhook;
      // Without a configured secret, one is made for this run and registered with setWebhook below.
      const secretToken = w.secretToken ?? randomBytes(32).toString('base64url');
      registerSecret(secretToken);
      this.server = await startWebhookServer({
        bot,
        host: w.host,
        port: w.port,
        path: w.path,
        secretToken,
        logger: this.log,
      }).catch((err: unknown) => {
        throw new RudderError(
          'CHANNEL_CONFIG',
          `The Telegram webhook server could not listen on ${w.host}:${w.port}: ${(err as Error).message}`,
          { channel: 'telegram', key: 'channels.telegram.webhook.port' },
        );
      });
      await bot.api
        .setWebhook(w.url, { secret_token: secretToken, allowed_updates: [...ALLOWED_UPDATES] })
        .catch((err: unknown) => {
          throw new RudderError(
            'CHANNEL_CONFIG',
            `Telegram refused channels.telegram.webhook.url (it must be a public HTTPS URL): ${describe(err, token)}`,
            { channel: 'telegram', key: 'channels.telegram.webhook.url' },
          );
        });
      this.state = { name: 'telegram', state: 'connected', detail: `@${bot.botInfo.username} via webhook` };
      return;
    }
    // A webhook left set would make getUpdates fail with 409; pending updates are kept.
    await bot.api.deleteWebhook({ drop_pending_updates: false }).catch((err: unknown) => {
      throw new RudderError(
        'CHANNEL_CONFIG',
        `Telegram refused to switch to long polling (deleteWebhook): ${describe(err, token)}`,
        { channel: 'telegram', key: 'channels.telegram.mode' },
      );
    });
    this.state = { name: 'telegram', state: 'connected', detail: `@${bot.botInfo.username} via long polling` };
    this.polling = poll({
      bot,
      signal: this.abort.signal,
      timeoutSeconds: this.cfg.pollTimeoutSeconds,
      logger: this.log,
      token,
      onState: (state, detail) => {
        if (this.state.state === 'stopped') return;
        this.state = {
          name: 'telegram',
          state,
          detail: state === 'connected' ? `@${bot.botInfo.username} via long polling` : detail,
        };
      },
    });
  }

  /**
   * Normalises, downloads attachments (of admitted senders), and commits through the sink. Throws if the commit failed.
   */
  private async accept(sink: InboundSink, bot: Bot, m: Message, edited: boolean): Promise<void> {
    const n = normalise(m, bot.botInfo, edited);
    if (!n) return;
    const source = { api: bot.api, apiRoot: this.apiRoot(), token: this.token };
    // The file URL holds the token; it must not reach a note.
    await saveIfAdmitted(
      sink,
      n.msg,
      n.files,
      { dataDir: this.dataDir, maxBytes: this.cfg.maxAttachmentMb * 1024 * 1024, secrets: [this.token] },
      (f, target, maxBytes) => fetchFile(f, target, maxBytes, source),
    );
    await sink.accept(n.msg);
  }

  async stop(): Promise<void> {
    this.typingKeeper.stopAll();
    this.abort.abort(new Error('telegram channel stopping'));
    const offset = await this.polling?.catch(() => 0);
    this.polling = undefined;
    if (this.server) await closeServer(this.server);
    this.server = undefined;
    // Confirms handled updates, so a restart does not receive them again.
    if (offset && this.bot) await this.bot.api.getUpdates({ offset, limit: 1, timeout: 0 }).catch(() => undefined);
    // Without a bot, typing() is a no-op and send()/ack() fail with "not started".
    this.bot = undefined;
    this.state = { name: 'telegram', state: 'stopped' };
  }

  send(reply: OutboundReply, to: MessageRef): Promise<void> {
    const parts = fitParts(reply.text, TELEGRAM_TEXT_LIMIT, toTelegramHtml, telegramVisibleLength);
    return this.serial.run(to.conversationKey, () =>
      this.progress.deliver(reply.outboxId, parts, (html, i) =>
        this.sendHtml(to, html, i === 0 ? reply.replyTo : undefined, i > 0),
      ),
    );
  }

  /**
   * Sends one part; a part Telegram cannot parse as HTML goes again as plain text. A reply notifies once: its
   * first part rings, the parts after it are silent.
   */
  private async sendHtml(to: MessageRef, html: string, replyTo: string | undefined, silent: boolean): Promise<void> {
    const { chatId, topicId } = parseConversationKey(to.conversationKey);
    const replyId = replyTo ? messageIdOf(replyTo) : undefined;
    const base = {
      ...placement(topicId, replyId),
      link_preview_options: { is_disabled: true },
      ...(silent ? { disable_notification: true } : {}),
    };
    await withRetry(async () => {
      try {
        await this.api().sendMessage(chatId, html, { ...base, parse_mode: 'HTML' });
      } catch (err) {
        if (isEntityError(err)) {
          this.log.warn('Telegram refused the HTML of a reply part; sending it as plain text');
          await this.api().sendMessage(chatId, htmlToText(html), base);
        } else if (isMissingReplyTarget(err)) {
          await this.api().sendMessage(chatId, html, { ...base, reply_parameters: undefined, parse_mode: 'HTML' });
        } else throw err;
      }
    }, this.retryOptions('sendMessage'));
  }

  private retryOptions(what: string) {
    return {
      channel: 'telegram',
      what,
      classify,
      describe: (e: unknown) => describe(e, this.token),
      signal: this.abort.signal,
      logger: this.log,
    };
  }

  /**
   * Telegram's reactions are a fixed set that has 👀 but no ➡️, ⏳ or ⏹, so only "received" is a
   * reaction; the others are the text acknowledgements every platform understands.
   */
  async ack(to: MessageRef, kind: AckKind, note?: string, opts?: AckOptions): Promise<void> {
    const msgId = to.platformMessageId ? messageIdOf(to.platformMessageId) : undefined;
    const { chatId, topicId } = parseConversationKey(to.conversationKey);
    if (kind === 'received' && msgId !== undefined) {
      try {
        await this.api().setMessageReaction(chatId, msgId, [{ type: 'emoji', emoji: '👀' }]);
        return;
      } catch (err) {
        this.log.debug({ err: describe(err, this.token) }, 'telegram reaction failed');
      }
    }
    const text = opts?.reactionOnly ? undefined : ackText(kind, note);
    if (!text) return;
    await this.serial.run(to.conversationKey, () =>
      withRetry(
        // An acknowledgement answers what the person just did: it never rings.
        () => this.api().sendMessage(chatId, text, { ...placement(topicId, msgId), disable_notification: true }),
        this.retryOptions('sendMessage'),
      ),
    );
  }

  typing(to: MessageRef, on: boolean): void {
    if (this.bot) this.typingKeeper.set(to, on);
  }

  status(): ChannelStatus {
    return { ...this.state };
  }

  async probe(): Promise<{ ok: boolean; detail: string }> {
    let token: string;
    try {
      token = this.configuredToken();
    } catch (err) {
      return { ok: false, detail: err instanceof Error ? err.message : String(err) };
    }
    try {
      const me = await new Api(token, { apiRoot: this.apiRoot() }).getMe();
      return { ok: true, detail: `token accepted: @${me.username}` };
    } catch (err) {
      return {
        ok: false,
        detail: isBadToken(err)
          ? 'channels.telegram.token was rejected by Telegram'
          : `Telegram not reachable: ${describe(err, token)}`,
      };
    }
  }
}
