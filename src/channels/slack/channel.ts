/**
 * Slack on @slack/bolt in Socket Mode. Both Web API clients (Bolt's and the Socket Mode client's)
 * use `apiUrl` from the config. Events are acknowledged only after they were committed (see
 * receiver.ts). Replies are mrkdwn, split at 4000 characters, posted in the thread they belong to.
 * Slack offers bots no typing indicator outside its assistant threads, so there is none here.
 */
import { App, webApi } from '@slack/bolt';
import type { SlackConfig } from '../../config/channels-schema.js';
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
import { ackText } from '../common/ack-text.js';
import { saveIfAdmitted } from '../common/attachments.js';
import { toSlackMrkdwn } from '../common/markdown/slack.js';
import { KeyedSerial } from '../common/ordered.js';
import { PartProgress } from '../common/part-progress.js';
import { withRetry } from '../common/retry.js';
import { fitParts } from '../common/split.js';
import { classify, describe, isBadToken, platformError } from './errors.js';
import { fetchSlackFile } from './files.js';
import { type Normalised, normalise, parseConversationKey, type SlackMessageEvent, tsOf } from './inbound.js';
import { slackLogger } from './logger.js';
import { SlackSurfaces } from './progress.js';
import { CommitFirstReceiver } from './receiver.js';
import { SlackVoice } from './voice.js';

/**
 * Slack truncates `text` past 40,000 characters and may split messages longer than about 4,000
 * on its own (https://api.slack.com/changelog/2018-04-truncating-really-long-messages), which
 * would cut code blocks; splitting at 4,000 keeps that in Rudder's hands.
 */
export const SLACK_TEXT_LIMIT = 4000;

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

export class SlackChannel implements Channel {
  readonly name = 'slack';
  private readonly cfg: SlackConfig;
  private readonly dataDir: string;
  private readonly log: Logger;
  private app?: App;
  private botUserId?: string;
  /** The trimmed tokens, set at start: the ones sent, so the ones redacted. */
  private tokens = { bot: '', app: '' };
  private state: ChannelStatus = { name: 'slack', state: 'stopped' };
  private abort = new AbortController();
  private readonly serial = new KeyedSerial();
  private readonly progress = new PartProgress();
  /** Inbound messages are committed one at a time, in arrival order. */
  private inbound: Promise<unknown> = Promise.resolve();
  private readonly threadText = new Map<string, string>();
  private readonly surfaces: SlackSurfaces;
  readonly capabilities: ChannelCapabilities;

  constructor(o: SlackChannelOptions) {
    this.cfg = o.config;
    this.dataDir = o.dataDir;
    this.log = o.logger.child({ channel: 'slack' });
    const surfaceDeps = {
      client: () => this.client(),
      retry: (what: string) => this.retryOptions(what),
      inOrder: <T>(key: string, task: () => Promise<T>) => this.serial.run(key, task),
      log: this.log,
    };
    this.surfaces = new SlackSurfaces(surfaceDeps);
    this.capabilities = {
      cards: this.surfaces,
      buttons: this.surfaces,
      voice: new SlackVoice(surfaceDeps),
      textLimit: SLACK_TEXT_LIMIT,
    };
  }

  private configuredTokens(): { bot: string; app: string } {
    const bot = this.cfg.botToken?.trim();
    const app = this.cfg.appToken?.trim();
    const fail = (key: string, what: string) => new RudderError('CHANNEL_CONFIG', what, { channel: 'slack', key });
    if (!bot)
      throw fail('channels.slack.botToken', 'Set channels.slack.botToken to the Bot User OAuth Token (xoxb-...).');
    if (!bot.startsWith('xoxb-'))
      throw fail('channels.slack.botToken', 'channels.slack.botToken must be a bot token starting with xoxb-.');
    if (!app)
      throw fail(
        'channels.slack.appToken',
        'Set channels.slack.appToken to an app-level token (xapp-...) with connections:write, for Socket Mode.',
      );
    if (!app.startsWith('xapp-'))
      throw fail('channels.slack.appToken', 'channels.slack.appToken must be an app-level token starting with xapp-.');
    return { bot, app };
  }

  private clientOptions() {
    // Rate-limited calls are rejected, not waited on, so common/retry.ts decides (bounded, ordered).
    return { slackApiUrl: this.apiUrl(), rejectRateLimitedCalls: true, retryConfig: { retries: 0 } };
  }

  /** The Web API client appends method names directly, so the base must end in a slash. */
  private apiUrl(): string {
    return this.cfg.apiUrl.endsWith('/') ? this.cfg.apiUrl : `${this.cfg.apiUrl}/`;
  }

  async start(sink: InboundSink): Promise<void> {
    this.state = { name: 'slack', state: 'starting' };
    try {
      await this.startInner(sink);
      this.state = { name: 'slack', state: 'connected', detail: `bot user ${this.botUserId}` };
    } catch (err) {
      await this.app?.stop().catch(() => undefined);
      this.app = undefined;
      this.state = { name: 'slack', state: 'error', detail: err instanceof Error ? err.message : String(err) };
      throw err;
    }
  }

  private async startInner(sink: InboundSink): Promise<void> {
    const tokens = this.configuredTokens();
    this.tokens = tokens;
    this.abort = new AbortController();
    const logger = slackLogger(this.log);
    const receiver = new CommitFirstReceiver(
      { appToken: tokens.app, logger, installerOptions: { clientOptions: { slackApiUrl: this.apiUrl() } } },
      this.log,
    );
    const app = new App({
      token: tokens.bot,
      receiver,
      logger,
      clientOptions: this.clientOptions(),
      deferInitialization: true,
    });
    this.app = app;
    // Listener failures propagate to the receiver, which then withholds the ack.
    app.error(async (err) => {
      throw err;
    });
    app.event('message', async ({ event }) => {
      const n = this.botUserId ? normalise(event as unknown as SlackMessageEvent, this.botUserId) : undefined;
      if (!n) return;
      const done = this.inbound.then(() => this.accept(sink, n));
      this.inbound = done.catch(() => undefined);
      await done;
    });
    this.surfaces.listen(app, sink);
    try {
      await app.init();
      const auth = await app.client.auth.test();
      this.botUserId = auth.user_id;
    } catch (err) {
      throw this.startError(err, 'channels.slack.botToken', tokens);
    }
    try {
      await app.start();
    } catch (err) {
      throw this.startError(err, 'channels.slack.appToken', tokens);
    }
    receiver.client.on('disconnected', () => this.setState('disconnected'));
    receiver.client.on('reconnecting', () => this.setState('starting', 'reconnecting'));
    receiver.client.on('connected', () => this.setState('connected', `bot user ${this.botUserId}`));
  }

  private startError(err: unknown, key: string, t: { bot: string; app: string }): RudderError {
    if (isBadToken(err))
      return new RudderError('CHANNEL_CONFIG', `${key} was rejected by Slack (${platformError(err)}).`, {
        channel: 'slack',
        key,
      });
    return new RudderError(
      'CHANNEL_CONFIG',
      `Slack could not be reached at channels.slack.apiUrl: ${describe(err, [t.bot, t.app])}`,
      { channel: 'slack', key: 'channels.slack.apiUrl' },
    );
  }

  private setState(state: ChannelStatus['state'], detail?: string): void {
    if (this.state.state !== 'stopped') this.state = { name: 'slack', state, detail };
  }

  private async accept(sink: InboundSink, n: Normalised): Promise<void> {
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
      { dataDir: this.dataDir, maxBytes: this.cfg.maxAttachmentMb * 1024 * 1024, secrets: [this.tokens.bot] },
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
      const r = await this.app!.client.conversations.replies({ channel, ts: threadTs, limit: 1, inclusive: true });
      const text = r.messages?.[0]?.text ?? '';
      if (this.threadText.size > 500) this.threadText.clear();
      this.threadText.set(key, text);
      return text || undefined;
    } catch (err) {
      this.log.debug({ err: describe(err, this.secrets()) }, 'slack thread root not readable');
      return undefined;
    }
  }

  async stop(): Promise<void> {
    this.abort.abort(new Error('slack channel stopping'));
    await this.app?.stop().catch(() => undefined);
    this.app = undefined;
    await this.inbound;
    this.state = { name: 'slack', state: 'stopped' };
  }

  private client(): webApi.WebClient {
    if (!this.app)
      throw new RudderError('CHANNEL_SEND_FAILED', 'The Slack channel is not started.', {
        channel: 'slack',
        permanent: false,
      });
    return this.app.client;
  }

  private secrets(): string[] {
    return [this.tokens.bot, this.tokens.app];
  }

  private retryOptions(what: string) {
    return {
      channel: 'slack',
      what,
      classify,
      describe: (e: unknown) => describe(e, this.secrets()),
      signal: this.abort.signal,
      logger: this.log,
    };
  }

  send(reply: OutboundReply, to: MessageRef): Promise<void> {
    const parts = fitParts(reply.text, SLACK_TEXT_LIMIT, toSlackMrkdwn);
    return this.serial.run(to.conversationKey, () =>
      this.progress.deliver(reply.outboxId, parts, (text) => this.post(to.conversationKey, text)),
    );
  }

  private async post(conversationKey: string, text: string): Promise<void> {
    const { channel, threadTs } = parseConversationKey(conversationKey);
    await withRetry(
      () =>
        this.client().chat.postMessage({
          channel,
          text,
          mrkdwn: true,
          unfurl_links: false,
          unfurl_media: false,
          ...(threadTs ? { thread_ts: threadTs } : {}),
        }),
      this.retryOptions('chat.postMessage'),
    );
  }

  async ack(to: MessageRef, kind: AckKind, note?: string, opts?: AckOptions): Promise<void> {
    const ts = to.platformMessageId ? tsOf(to.platformMessageId) : undefined;
    const { channel } = parseConversationKey(to.conversationKey);
    if (ts) {
      try {
        await this.client().reactions.add({ channel, timestamp: ts, name: SLACK_REACTIONS[kind] });
        return;
      } catch (err) {
        if (platformError(err) === 'already_reacted') return;
        this.log.debug(
          { err: describe(err, this.secrets()), kind },
          'slack reaction failed; using the text acknowledgement',
        );
      }
    }
    const text = opts?.reactionOnly ? undefined : ackText(kind, note);
    if (text) await this.serial.run(to.conversationKey, () => this.post(to.conversationKey, text));
  }

  status(): ChannelStatus {
    return { ...this.state };
  }

  async probe(): Promise<{ ok: boolean; detail: string }> {
    let t: { bot: string; app: string };
    try {
      t = this.configuredTokens();
    } catch (err) {
      return { ok: false, detail: (err as Error).message };
    }
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
