/**
 * The Telegram adapter, on grammY: long polling by default, webhook as an option, `apiRoot` from the
 * config (a self-hosted Bot API server or a proxy). Replies go out as HTML, split at 4096 characters.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { Api, Bot } from 'grammy';
import type { Message } from 'grammy/types';
import type { TelegramConfig } from '../../config/channels-schema.js';
import type { Logger } from '../../ops/logger.js';
import { registerSecret } from '../../ops/redact.js';
import type { AckKind, ChannelCapabilities, InboundSink, MessageRef } from '../channel.js';
import { saveIfAdmitted } from '../common/attachments.js';
import { configError, whileRunning } from '../common/errors.js';
import { htmlToText, telegramVisibleLength, toTelegramHtml } from '../common/markdown/telegram.js';
import { withRetry } from '../common/retry.js';
import { fitParts } from '../common/split.js';
import { probeToken, requireToken } from '../common/tokens.js';
import type { ChannelAdapter, ChannelLink, ProbeResult, TypingCalls } from '../runtime/adapter.js';
import { messageIdOf, parseConversationKey, placement } from './address.js';
import { classify, describe, isBadToken, isEntityError, isMissingReplyTarget } from './errors.js';
import { fetchFile } from './files.js';
import { FloodHold } from './flood.js';
import { normalise } from './inbound.js';
import { ALLOWED_UPDATES, grammySignal, poll } from './polling.js';
import { TELEGRAM_TEXT_LIMIT, TelegramSurfaces } from './surface.js';
import { TelegramVoice } from './voice.js';
import { closeServer, startWebhookServer } from './webhook.js';

/** Telegram shows "typing…" for 5 seconds; re-sent a little before it fades. */
const TYPING_INTERVAL_MS = 4_000;

export interface TelegramChannelOptions {
  config: TelegramConfig;
  dataDir: string;
  logger: Logger;
  /** How often typing is re-sent; tests shorten it. */
  typingIntervalMs?: number;
}

export class TelegramAdapter implements ChannelAdapter {
  readonly capabilities: ChannelCapabilities;
  readonly typing: TypingCalls;
  private readonly cfg: TelegramConfig;
  private bot?: Bot;
  /** The trimmed token, set at connect: the one sent, so the one redacted. */
  private token = '';
  private polling?: Promise<number>;
  private server?: http.Server;
  /** A 429's retry_after holds every call to that chat, the typing indicator included. */
  private readonly flood = new FloodHold();
  private readonly surfaces: TelegramSurfaces;

  constructor(
    private readonly o: TelegramChannelOptions,
    private readonly link: ChannelLink,
  ) {
    this.cfg = o.config;
    const deps = { link, client: () => this.api(), describe: (err: unknown) => this.describe(err) };
    this.surfaces = new TelegramSurfaces(deps);
    this.capabilities = {
      cards: this.surfaces,
      drafts: this.surfaces,
      buttons: this.surfaces,
      textLimit: TELEGRAM_TEXT_LIMIT,
      voice: new TelegramVoice(deps),
    };
    this.typing = {
      intervalMs: o.typingIntervalMs ?? TYPING_INTERVAL_MS,
      ready: () => this.bot !== undefined,
      send: async (to) => {
        const { chatId, topicId } = parseConversationKey(to.conversationKey);
        await this.api().sendChatAction(chatId, 'typing', placement(topicId));
      },
    };
  }

  classify = classify;

  describe(err: unknown): string {
    return describe(err, this.token);
  }

  /** grammY appends "/bot<token>/<method>"; a trailing slash would double it. */
  private apiRoot(): string {
    return this.cfg.apiRoot.replace(/\/+$/, '');
  }

  private api(): Api {
    return whileRunning(this.bot?.api, 'telegram', 'The Telegram channel is not started.');
  }

  async connect(sink: InboundSink, signal: AbortSignal): Promise<void> {
    this.token = requireToken('telegram.token', this.cfg.token);
    const webhook = this.cfg.mode === 'webhook' ? this.cfg.webhook : undefined;
    if (this.cfg.mode === 'webhook' && !webhook) {
      throw configError(
        'telegram',
        'webhook.url',
        'channels.telegram.mode is "webhook" but channels.telegram.webhook.url is not set.',
      );
    }
    const bot = await this.initBot(signal);
    bot.on(['message', 'edited_message'], async (ctx) => {
      const edited = ctx.editedMessage !== undefined;
      await this.receive(sink, bot, (ctx.editedMessage ?? ctx.message) as Message, edited);
    });
    // A press is answered after the gateway decided (at most once), before the offset moves on.
    bot.on('callback_query:data', (ctx) => this.surfaces.pressed(sink, ctx.callbackQuery));
    this.bot = bot;
    if (webhook) await this.takeWebhooks(bot, webhook);
    else await this.takePolls(bot, signal);
  }

  /** The bot, its getMe answered (grammY retries it while the Bot API does not answer). */
  private async initBot(signal: AbortSignal): Promise<Bot> {
    const bot = new Bot(this.token, { client: { apiRoot: this.apiRoot() } });
    bot.api.config.use(this.flood.transformer);
    try {
      await bot.init(grammySignal(signal));
    } catch (err) {
      if (isBadToken(err))
        throw configError(
          'telegram',
          'token',
          'channels.telegram.token was rejected by Telegram; check it with @BotFather.',
        );
      throw configError(
        'telegram',
        'apiRoot',
        `Telegram could not be reached at channels.telegram.apiRoot: ${this.describe(err)}`,
      );
    }
    return bot;
  }

  private async takeWebhooks(bot: Bot, w: NonNullable<TelegramConfig['webhook']>): Promise<void> {
    // Without a configured secret, one is made for this run and registered with setWebhook below.
    const secretToken = w.secretToken ?? randomBytes(32).toString('base64url');
    registerSecret(secretToken);
    const { host, port, path } = w;
    this.server = await startWebhookServer({ bot, host, port, path, secretToken, logger: this.link.log }).catch(
      (err: unknown) => {
        throw configError(
          'telegram',
          'webhook.port',
          `The Telegram webhook server could not listen on ${host}:${port}: ${(err as Error).message}`,
        );
      },
    );
    await bot.api
      .setWebhook(w.url, { secret_token: secretToken, allowed_updates: [...ALLOWED_UPDATES] })
      .catch((err: unknown) => {
        throw configError(
          'telegram',
          'webhook.url',
          `Telegram refused channels.telegram.webhook.url (it must be a public HTTPS URL): ${this.describe(err)}`,
        );
      });
    this.link.report('connected', `@${bot.botInfo.username} via webhook`);
  }

  private async takePolls(bot: Bot, signal: AbortSignal): Promise<void> {
    // A webhook left set would make getUpdates fail with 409; pending updates are kept.
    await bot.api.deleteWebhook({ drop_pending_updates: false }).catch((err: unknown) => {
      throw configError(
        'telegram',
        'mode',
        `Telegram refused to switch to long polling (deleteWebhook): ${this.describe(err)}`,
      );
    });
    const connected = `@${bot.botInfo.username} via long polling`;
    this.link.report('connected', connected);
    this.polling = poll({
      bot,
      signal,
      timeoutSeconds: this.cfg.pollTimeoutSeconds,
      logger: this.link.log,
      token: this.token,
      onState: (state, detail) => this.link.report(state, state === 'connected' ? connected : detail),
    });
  }

  /** Normalises, downloads attachments (of admitted senders), and commits through the sink. Throws if it failed. */
  private async receive(sink: InboundSink, bot: Bot, m: Message, edited: boolean): Promise<void> {
    const n = normalise(m, bot.botInfo, edited);
    if (!n) return;
    const source = { api: bot.api, apiRoot: this.apiRoot(), token: this.token };
    // The file URL holds the token; it must not reach a note.
    await saveIfAdmitted(
      sink,
      n.msg,
      n.files,
      { dataDir: this.o.dataDir, maxBytes: this.cfg.maxAttachmentMb * 1024 * 1024, secrets: [this.token] },
      (f, target, maxBytes) => fetchFile(f, target, maxBytes, source),
    );
    await sink.accept(n.msg);
  }

  async disconnect(): Promise<void> {
    const offset = await this.polling?.catch(() => 0);
    this.polling = undefined;
    if (this.server) await closeServer(this.server);
    this.server = undefined;
    // Confirms handled updates, so a restart does not receive them again.
    if (offset && this.bot) await this.bot.api.getUpdates({ offset, limit: 1, timeout: 0 }).catch(() => undefined);
    // Without a bot, typing is off and sends fail with "not started".
    this.bot = undefined;
  }

  render(markdown: string): string[] {
    return fitParts(markdown, TELEGRAM_TEXT_LIMIT, toTelegramHtml, telegramVisibleLength);
  }

  /**
   * One part; a part Telegram cannot parse as HTML goes again as plain text. A reply notifies once: its
   * first part rings, the parts after it are silent.
   */
  async sendPart(to: MessageRef, html: string, index: number, replyTo: string | undefined): Promise<void> {
    const { chatId, topicId } = parseConversationKey(to.conversationKey);
    const replyId = replyTo ? messageIdOf(replyTo) : undefined;
    const base = {
      ...placement(topicId, replyId),
      link_preview_options: { is_disabled: true },
      ...(index > 0 ? { disable_notification: true } : {}),
    };
    await withRetry(async () => {
      try {
        await this.api().sendMessage(chatId, html, { ...base, parse_mode: 'HTML' });
      } catch (err) {
        if (isEntityError(err)) {
          this.link.log.warn('Telegram refused the HTML of a reply part; sending it as plain text');
          await this.api().sendMessage(chatId, htmlToText(html), base);
        } else if (isMissingReplyTarget(err)) {
          await this.api().sendMessage(chatId, html, { ...base, reply_parameters: undefined, parse_mode: 'HTML' });
        } else throw err;
      }
    }, this.link.retry('sendMessage'));
  }

  /**
   * Telegram's reactions are a fixed set that has 👀 but no ➡️, ⏳ or ⏹, so only "received" is a
   * reaction; the others are the text acknowledgements every platform understands.
   */
  async react(to: MessageRef, kind: AckKind): Promise<boolean> {
    const msgId = to.platformMessageId ? messageIdOf(to.platformMessageId) : undefined;
    if (kind !== 'received' || msgId === undefined) return false;
    const { chatId } = parseConversationKey(to.conversationKey);
    await this.api().setMessageReaction(chatId, msgId, [{ type: 'emoji', emoji: '👀' }]);
    return true;
  }

  async sendAck(to: MessageRef, text: string): Promise<void> {
    const msgId = to.platformMessageId ? messageIdOf(to.platformMessageId) : undefined;
    const { chatId, topicId } = parseConversationKey(to.conversationKey);
    await withRetry(
      // An acknowledgement answers what the person just did: it never rings.
      () => this.api().sendMessage(chatId, text, { ...placement(topicId, msgId), disable_notification: true }),
      this.link.retry('sendMessage'),
    );
  }

  async probe(): Promise<ProbeResult> {
    const token = requireToken('telegram.token', this.cfg.token);
    const whoAmI = async () => `@${(await new Api(token, { apiRoot: this.apiRoot() }).getMe()).username}`;
    return probeToken('telegram.token', 'Telegram', whoAmI, { isBadToken, describe: (err) => describe(err, token) });
  }
}
