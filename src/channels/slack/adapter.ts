/**
 * The Slack adapter, on @slack/bolt in Socket Mode. Both Web API clients (Bolt's and the Socket Mode
 * client's) use `apiUrl` from the config. Events are acknowledged only after they were committed (see
 * receiver.ts). Replies are mrkdwn, split at 4000 characters, posted in the thread they belong to.
 * Slack offers bots no typing indicator outside its assistant threads, so there is none here.
 */
import { App, webApi } from '@slack/bolt';
import type { SlackConfig } from '../../config/channels-schema.js';
import type { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type { AckKind, ChannelCapabilities, InboundSink, MessageRef } from '../channel.js';
import { saveIfAdmitted } from '../common/attachments.js';
import { configError, whileRunning } from '../common/errors.js';
import { toSlackMrkdwn } from '../common/markdown/slack.js';
import { withRetry } from '../common/retry.js';
import { fitParts } from '../common/split.js';
import { requireToken } from '../common/tokens.js';
import type { ChannelAdapter, ChannelLink, ProbeResult } from '../runtime/adapter.js';
import { classify, describe, isBadToken, platformError } from './errors.js';
import { fetchSlackFile } from './files.js';
import { type Normalised, normalise, parseConversationKey, type SlackMessageEvent, tsOf } from './inbound.js';
import { slackLogger } from './logger.js';
import { CommitFirstReceiver } from './receiver.js';
import { SLACK_TEXT_LIMIT, SlackSurfaces, where } from './surface.js';
import { SlackVoice } from './voice.js';

/** Reaction names for the acknowledgements (Slack reactions are named, not Unicode). */
export const SLACK_REACTIONS: Record<AckKind, string> = {
  received: 'eyes',
  steered: 'arrow_right',
  queued: 'hourglass_flowing_sand',
  stopped: 'black_square_for_stop',
};

export interface SlackChannelOptions {
  config: SlackConfig;
  dataDir: string;
  logger: Logger;
}

interface Tokens {
  bot: string;
  app: string;
}

function configuredTokens(cfg: SlackConfig): Tokens {
  return { bot: requireToken('slack.botToken', cfg.botToken), app: requireToken('slack.appToken', cfg.appToken) };
}

/** Why Slack did not take a token (`key` names it), or that it could not be reached. */
function startError(err: unknown, key: 'botToken' | 'appToken', t: Tokens): RudderError {
  if (isBadToken(err))
    return configError('slack', key, `channels.slack.${key} was rejected by Slack (${platformError(err)}).`);
  return configError(
    'slack',
    'apiUrl',
    `Slack could not be reached at channels.slack.apiUrl: ${describe(err, [t.bot, t.app])}`,
  );
}

export class SlackAdapter implements ChannelAdapter {
  readonly capabilities: ChannelCapabilities;
  private readonly cfg: SlackConfig;
  private app?: App;
  private botUserId?: string;
  /** The trimmed tokens, set at connect: the ones sent, so the ones redacted. */
  private tokens: Tokens = { bot: '', app: '' };
  private readonly threadText = new Map<string, string>();
  private readonly surfaces: SlackSurfaces;

  constructor(
    private readonly o: SlackChannelOptions,
    private readonly link: ChannelLink,
  ) {
    this.cfg = o.config;
    const deps = { link, client: () => this.client() };
    this.surfaces = new SlackSurfaces(deps);
    this.capabilities = {
      textLimit: SLACK_TEXT_LIMIT,
      cards: this.surfaces,
      buttons: this.surfaces,
      voice: new SlackVoice(deps),
    };
  }

  classify = classify;

  describe(err: unknown): string {
    return describe(err, [this.tokens.bot, this.tokens.app]);
  }

  private clientOptions() {
    // Rate-limited calls are rejected, not waited on, so common/retry.ts decides (bounded, ordered).
    return { slackApiUrl: this.apiUrl(), rejectRateLimitedCalls: true, retryConfig: { retries: 0 } };
  }

  /** The Web API client appends method names directly, so the base must end in a slash. */
  private apiUrl(): string {
    return this.cfg.apiUrl.endsWith('/') ? this.cfg.apiUrl : `${this.cfg.apiUrl}/`;
  }

  private client(): webApi.WebClient {
    return whileRunning(this.app?.client, 'slack', 'The Slack channel is not started.');
  }

  async connect(sink: InboundSink): Promise<void> {
    const tokens = configuredTokens(this.cfg);
    this.tokens = tokens;
    const logger = slackLogger(this.link.log);
    const receiver = new CommitFirstReceiver(
      { appToken: tokens.app, logger, installerOptions: { clientOptions: { slackApiUrl: this.apiUrl() } } },
      this.link.log,
    );
    const app = new App({
      token: tokens.bot,
      receiver,
      logger,
      clientOptions: this.clientOptions(),
      deferInitialization: true,
    });
    this.app = app;
    this.listen(app, sink);
    try {
      await app.init();
      const auth = await app.client.auth.test();
      this.botUserId = auth.user_id;
    } catch (err) {
      throw startError(err, 'botToken', tokens);
    }
    await app.start().catch((err: unknown) => {
      throw startError(err, 'appToken', tokens);
    });
    receiver.client.on('disconnected', () => this.link.report('disconnected'));
    receiver.client.on('reconnecting', () => this.link.report('starting', 'reconnecting'));
    receiver.client.on('connected', () => this.link.report('connected', `bot user ${this.botUserId}`));
    this.link.report('connected', `bot user ${this.botUserId}`);
  }

  private listen(app: App, sink: InboundSink): void {
    // Listener failures propagate to the receiver, which then withholds the ack.
    app.error(async (err) => {
      throw err;
    });
    app.event('message', async ({ event }) => {
      const n = this.botUserId ? normalise(event as unknown as SlackMessageEvent, this.botUserId) : undefined;
      if (n) await this.link.inbound(() => this.receive(sink, n));
    });
    this.surfaces.listen(app, sink);
  }

  private async receive(sink: InboundSink, n: Normalised): Promise<void> {
    // A thread's root is read, like attachments, only for a sender who is let in.
    if (n.threadRoot && sink.admits(n.msg)) {
      const quoted = await this.rootText(parseConversationKey(n.msg.conversationKey).channel, n.threadRoot);
      if (quoted) n.msg.quoted = { text: quoted };
    }
    const source = { apiUrl: this.apiUrl(), botToken: this.tokens.bot };
    await saveIfAdmitted(
      sink,
      n.msg,
      n.files,
      { dataDir: this.o.dataDir, maxBytes: this.cfg.maxAttachmentMb * 1024 * 1024, secrets: [this.tokens.bot] },
      (f, target, maxBytes) => fetchSlackFile(f, target, maxBytes, source),
    );
    await sink.accept(n.msg);
  }

  /** The thread's first message, given to the agent as the quoted context of a thread reply. */
  private async rootText(channel: string, threadTs: string): Promise<string | undefined> {
    const key = `${channel}:${threadTs}`;
    const cached = this.threadText.get(key);
    if (cached !== undefined) return cached;
    try {
      const r = await this.client().conversations.replies({ channel, ts: threadTs, limit: 1, inclusive: true });
      const text = r.messages?.[0]?.text ?? '';
      if (this.threadText.size > 500) this.threadText.clear();
      this.threadText.set(key, text);
      return text || undefined;
    } catch (err) {
      this.link.log.debug({ err: this.describe(err) }, 'slack thread root not readable');
      return undefined;
    }
  }

  async disconnect(): Promise<void> {
    await this.app?.stop().catch(() => undefined);
    this.app = undefined;
  }

  render(markdown: string): string[] {
    return fitParts(markdown, SLACK_TEXT_LIMIT, toSlackMrkdwn);
  }

  /** Slack has no reply reference or silent flag: a reply is its thread. */
  sendPart(to: MessageRef, part: string): Promise<void> {
    return this.post(to.conversationKey, part);
  }

  sendAck(to: MessageRef, text: string): Promise<void> {
    return this.post(to.conversationKey, text);
  }

  private async post(conversationKey: string, text: string): Promise<void> {
    await withRetry(
      () =>
        this.client().chat.postMessage({
          ...where(conversationKey),
          text,
          mrkdwn: true,
          unfurl_links: false,
          unfurl_media: false,
        }),
      this.link.retry('chat.postMessage'),
    );
  }

  async react(to: MessageRef, kind: AckKind): Promise<boolean> {
    const ts = to.platformMessageId ? tsOf(to.platformMessageId) : undefined;
    if (!ts) return false;
    const { channel } = parseConversationKey(to.conversationKey);
    try {
      await this.client().reactions.add({ channel, timestamp: ts, name: SLACK_REACTIONS[kind] });
    } catch (err) {
      if (platformError(err) !== 'already_reacted') throw err;
    }
    return true;
  }

  async probe(): Promise<ProbeResult> {
    const t = configuredTokens(this.cfg);
    const check = async (key: string, call: () => Promise<unknown>): Promise<string | undefined> => {
      try {
        await call();
        return undefined;
      } catch (err) {
        return isBadToken(err)
          ? `${key} was rejected by Slack (${platformError(err)})`
          : `Slack not reachable: ${describe(err, [t.bot, t.app])}`;
      }
    };
    const bot = await check('channels.slack.botToken', () =>
      new webApi.WebClient(t.bot, this.clientOptions()).auth.test(),
    );
    if (bot) return { ok: false, detail: bot };
    const app = await check('channels.slack.appToken', () =>
      new webApi.WebClient(t.app, this.clientOptions()).apps.connections.open(),
    );
    return app ? { ok: false, detail: app } : { ok: true, detail: 'bot and app tokens accepted' };
  }
}
