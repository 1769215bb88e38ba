/**
 * The Discord adapter, on discord.js: the gateway for inbound messages and edits, the library's REST
 * client (base URL from `restApi`) for replies, reactions and typing. Replies are Discord Markdown as
 * written, split at 2000 characters, with mentions disabled so agent output never pings anyone.
 */
import {
  Client,
  Events,
  GatewayIntentBits,
  type Message,
  type PartialMessage,
  Partials,
  REST,
  Routes,
} from 'discord.js';
import type { DiscordConfig } from '../../config/channels-schema.js';
import type { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { AckKind, ChannelCapabilities, InboundSink, MessageRef } from '../channel.js';
import { ACK_EMOJI } from '../common/ack-text.js';
import { downloadTo, saveIfAdmitted } from '../common/attachments.js';
import { configError, whileRunning } from '../common/errors.js';
import { commitWithRetry, withRetry } from '../common/retry.js';
import { splitMarkdown } from '../common/split.js';
import { probeToken, requireToken } from '../common/tokens.js';
import type { ChannelAdapter, ChannelLink, ProbeResult, TypingCalls } from '../runtime/adapter.js';
import { classify, describe, isBadToken, isDisallowedIntents } from './errors.js';
import { isTextEdit, type Normalised, normalise } from './inbound.js';
import { DISCORD_TEXT_LIMIT, DiscordSurfaces, messageBody } from './surface.js';
import { DiscordVoice } from './voice.js';

/** The typing indicator lasts 10 seconds or until a message is sent. */
const TYPING_INTERVAL_MS = 8_000;

export interface DiscordChannelOptions {
  config: DiscordConfig;
  dataDir: string;
  logger: Logger;
  /** How often typing is re-sent; tests shorten it. */
  typingIntervalMs?: number;
}

/** Why a login failed, as the setting to fix. */
function loginError(err: unknown, token: string): RudderError {
  if (isBadToken(err))
    return configError(
      'discord',
      'token',
      'channels.discord.token was rejected by Discord; reset it on the Bot page of the developer portal.',
    );
  if (isDisallowedIntents(err))
    return configError(
      'discord',
      'token',
      'Discord refused the Message Content intent: turn on "Message Content Intent" on the Bot page ' +
        'of the developer portal.',
    );
  return configError(
    'discord',
    'restApi',
    `Discord could not be reached at channels.discord.restApi: ${describe(err, token)}`,
  );
}

export class DiscordAdapter implements ChannelAdapter {
  readonly capabilities: ChannelCapabilities;
  readonly typing: TypingCalls;
  private readonly cfg: DiscordConfig;
  private client?: Client;
  /** The trimmed token, set at connect: the one sent, so the one redacted. */
  private token = '';
  private readonly surfaces: DiscordSurfaces;

  constructor(
    private readonly o: DiscordChannelOptions,
    private readonly link: ChannelLink,
  ) {
    this.cfg = o.config;
    this.typing = {
      intervalMs: o.typingIntervalMs ?? TYPING_INTERVAL_MS,
      ready: () => this.client !== undefined,
      send: async (to) => {
        await this.rest().post(Routes.channelTyping(to.conversationKey));
      },
    };
    const deps = { link, client: () => this.rest() };
    this.surfaces = new DiscordSurfaces(deps);
    this.capabilities = {
      cards: this.surfaces,
      buttons: this.surfaces,
      voice: new DiscordVoice(deps),
      textLimit: DISCORD_TEXT_LIMIT,
    };
  }

  classify = classify;

  describe(err: unknown): string {
    return describe(err, this.token);
  }

  private rest(): REST {
    return whileRunning(this.client?.rest, 'discord', 'The Discord channel is not started.');
  }

  private restOptions() {
    // retries 0 and rejectOnRateLimit: waiting and retrying happen in common/retry.ts, bounded.
    return { api: this.cfg.restApi.replace(/\/+$/, ''), retries: 0, rejectOnRateLimit: () => true };
  }

  async connect(sink: InboundSink, signal: AbortSignal): Promise<void> {
    const token = requireToken('discord.token', this.cfg.token);
    this.token = token;
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
    this.listen(client, sink, signal);
    this.client = client;
    await client.login(token).catch((err: unknown) => {
      throw loginError(err, token);
    });
    this.report('connected');
  }

  private listen(client: Client, sink: InboundSink, signal: AbortSignal): void {
    client.on(Events.MessageCreate, (m) => this.enqueue(sink, m, false, signal));
    client.on(Events.MessageUpdate, (old, m) => {
      if (isTextEdit(old, m)) this.enqueue(sink, m, true, signal);
    });
    client.on(Events.InteractionCreate, (i) => {
      if (!i.isButton()) return;
      this.surfaces
        .pressed(sink, i)
        .catch((err: unknown) =>
          this.link.log.error({ err: (err as Error).message }, 'discord button press not handled'),
        );
    });
    client.on(Events.ShardDisconnect, () => this.report('disconnected', 'gateway closed'));
    client.on(Events.ShardReconnecting, () => this.report('starting', 'reconnecting to the gateway'));
    client.on(Events.ShardResume, () => this.report('connected'));
    client.on(Events.ShardReady, () => this.report('connected'));
    client.on(Events.Error, (err) => this.link.log.error({ err: this.describe(err) }, 'discord client error'));
  }

  /** A state change; without a detail of its own it says who the bot is. */
  private report(state: 'starting' | 'connected' | 'disconnected', detail?: string): void {
    this.link.report(state, detail ?? this.client?.user?.tag);
  }

  /**
   * discord.js does not await listeners; the link's inbound queue keeps commits in arrival order. The
   * message is normalised at once: the library patches the same cached object when an edit arrives.
   */
  private enqueue(sink: InboundSink, m: Message | PartialMessage, edited: boolean, signal: AbortSignal): void {
    const botId = this.client?.user?.id;
    if (!botId) return;
    const now = m.partial ? undefined : normalise(m, botId, edited);
    if (!m.partial && !now) return;
    this.link
      .inbound(async () => {
        const n = now ?? (await this.fetchPartial(m, botId, edited));
        if (n) await this.receive(sink, n, signal);
      })
      .catch((err: unknown) =>
        this.link.log.error(
          { err: err instanceof Error ? err.message : String(err), id: m.id },
          'discord message not committed',
        ),
      );
  }

  private async fetchPartial(
    m: Message | PartialMessage,
    botId: string,
    edited: boolean,
  ): Promise<Normalised | undefined> {
    const full = await m.fetch().catch(() => undefined);
    return full ? normalise(full, botId, edited) : undefined;
  }

  /** Discord does not deliver a message again: a failing commit is retried until the channel stops. */
  private async receive(sink: InboundSink, n: Normalised, signal: AbortSignal): Promise<void> {
    await saveIfAdmitted(
      sink,
      n.msg,
      n.files,
      { dataDir: this.o.dataDir, maxBytes: this.cfg.maxAttachmentMb * 1024 * 1024 },
      (f, target, maxBytes) => downloadTo(target, f.url, { maxBytes }),
    );
    await commitWithRetry('discord', () => sink.accept(n.msg), signal);
  }

  async disconnect(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.destroy();
  }

  render(markdown: string): string[] {
    return splitMarkdown(markdown, DISCORD_TEXT_LIMIT);
  }

  sendPart(to: MessageRef, part: string, index: number, replyTo: string | undefined): Promise<void> {
    return this.post(to.conversationKey, part, replyTo, index > 0);
  }

  /** One message; `silent` (@silent) for the parts after a reply's first and for acknowledgements. */
  private async post(channelId: string, content: string, replyTo: string | undefined, silent: boolean): Promise<void> {
    const body = messageBody(content, replyTo, silent);
    await withRetry(
      () => this.rest().post(Routes.channelMessages(channelId), { body }),
      this.link.retry('createMessage'),
    );
  }

  async react(to: MessageRef, kind: AckKind): Promise<boolean> {
    const msgId = to.platformMessageId?.split('@')[0];
    if (!msgId) return false;
    const emoji = encodeURIComponent(ACK_EMOJI[kind]);
    await this.rest().put(Routes.channelMessageOwnReaction(to.conversationKey, msgId, emoji));
    return true;
  }

  sendAck(to: MessageRef, text: string): Promise<void> {
    return this.post(to.conversationKey, text, to.platformMessageId?.split('@')[0], true);
  }

  async probe(): Promise<ProbeResult> {
    const token = requireToken('discord.token', this.cfg.token);
    const rest = new REST(this.restOptions()).setToken(token);
    const whoAmI = async () => ((await rest.get(Routes.user('@me'))) as { username: string }).username;
    return probeToken('discord.token', 'Discord', whoAmI, { isBadToken, describe: (err) => describe(err, token) });
  }
}
