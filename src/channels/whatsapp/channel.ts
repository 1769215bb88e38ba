/**
 * WhatsApp on Baileys (WhatsApp Web multi-device). Paired by QR code: printed on the terminal and
 * exposed through qr()/onQr() for the web page. Auth state lives in <dataDir>/whatsapp-auth.
 * Baileys acknowledges receipt to WhatsApp itself, before Rudder sees a message; commits here are
 * retried so a failing inbox does not lose it.
 */
import fs from 'node:fs';
import {
  DisconnectReason,
  downloadMediaMessage,
  type WAMessage,
  type WAMessageKey,
  type WASocket,
} from '@whiskeysockets/baileys';
import qrcode from 'qrcode-terminal';
import type { WhatsAppConfig } from '../../config/channels-schema.js';
import { RudderError } from '../../errors.js';
import type { Logger } from '../../ops/logger.js';
import type {
  AckKind,
  AckOptions,
  CardCalls,
  CardView,
  Channel,
  ChannelCapabilities,
  ChannelStatus,
  InboundSink,
  MessageRef,
  OutboundReply,
  OutboundVoice,
  VoiceCalls,
} from '../channel.js';
import { ACK_EMOJI, ackText } from '../common/ack-text.js';
import { saveBuffer, saveIfAdmitted } from '../common/attachments.js';
import { cardMarkdown } from '../common/card.js';
import { toWhatsApp } from '../common/markdown/whatsapp.js';
import { KeyedSerial } from '../common/ordered.js';
import { PartProgress } from '../common/part-progress.js';
import { commitWithRetry, type Verdict, withRetry } from '../common/retry.js';
import { fitParts } from '../common/split.js';
import { TypingKeeper } from '../common/typing.js';
import { type Normalised, normalise, parsePlatformId } from './inbound.js';
import {
  authDir,
  type BaileysLogger,
  baileysLogger,
  defaultSocketFactory,
  loadAuth,
  type SocketFactory,
  socketConfig,
} from './socket.js';

/**
 * WhatsApp's documented text body limit is 4096 characters (Cloud API `text.body`,
 * https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages); the Web client
 * accepts more, but parts this size stay readable on a phone.
 */
export const WHATSAPP_TEXT_LIMIT = 4096;
/** "composing" fades after about 10 seconds without a refresh. */
const TYPING_INTERVAL_MS = 8_000;
/** Recent inbound messages kept for quoting and reactions (Baileys needs the full key). */
const RECENT_LIMIT = 500;
/** WhatsApp lets a sender edit a message for 15 minutes; later edits are not shown, so none are sent. */
const EDIT_WINDOW_MS = 15 * 60_000 - 30_000;

export interface WhatsAppChannelOptions {
  config: WhatsAppConfig;
  dataDir: string;
  logger: Logger;
  /** Builds the Baileys socket; defaults to makeWASocket. */
  socketFactory?: SocketFactory;
  /** How long after posting a progress card may still be edited; tests shorten it. */
  editWindowMs?: number;
}

/** Baileys errors are Boom errors: the HTTP-like status sits in output.statusCode. */
function statusOf(err: unknown): number | undefined {
  const s = (err as { output?: { statusCode?: unknown } } | undefined)?.output?.statusCode;
  return typeof s === 'number' ? s : undefined;
}

function classify(err: unknown): Verdict {
  const status = statusOf(err);
  if (status === 429) return { kind: 'rate-limited', retryAfterMs: 5_000 };
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 428)
    return { kind: 'permanent' };
  return { kind: 'transient' };
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class WhatsAppChannel implements Channel, CardCalls, VoiceCalls {
  readonly name = 'whatsapp';
  /** Cards are edited in place within WhatsApp's edit window; no buttons or drafts there. Voice notes. */
  readonly capabilities: ChannelCapabilities = { cards: this, voice: this, textLimit: WHATSAPP_TEXT_LIMIT };
  private readonly cfg: WhatsAppConfig;
  private readonly dataDir: string;
  private readonly log: Logger;
  private readonly libLog: BaileysLogger;
  private readonly factory: SocketFactory;
  private sock?: WASocket;
  private state: ChannelStatus = { name: 'whatsapp', state: 'stopped' };
  private currentQr?: string;
  private readonly qrListeners = new Set<(qr: string | undefined) => void>();
  private stopping = false;
  /** Aborted by stop(): a pending connect makes no socket, and commit retries stop waiting. */
  private abort = new AbortController();
  private reconnects = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private readonly serial = new KeyedSerial();
  private readonly progress = new PartProgress();
  private readonly recent = new Map<string, WAMessage>();
  private inbound: Promise<void> = Promise.resolve();
  private readonly typingKeeper: TypingKeeper;
  private sink?: InboundSink;
  private readonly editWindowMs: number;

  constructor(o: WhatsAppChannelOptions) {
    this.editWindowMs = o.editWindowMs ?? EDIT_WINDOW_MS;
    this.cfg = o.config;
    this.dataDir = o.dataDir;
    this.log = o.logger.child({ channel: 'whatsapp' });
    this.libLog = baileysLogger(this.log);
    this.factory = o.socketFactory ?? defaultSocketFactory;
    this.typingKeeper = new TypingKeeper({
      intervalMs: TYPING_INTERVAL_MS,
      logger: this.log,
      send: (to) => this.socket().sendPresenceUpdate('composing', to.conversationKey),
      clear: (to) => this.socket().sendPresenceUpdate('paused', to.conversationKey),
    });
  }

  /** The QR code to scan while pairing (WhatsApp > Linked devices), or undefined once paired. */
  qr(): string | undefined {
    return this.currentQr;
  }

  /** Calls listener with every new QR code, and with undefined once pairing is done. */
  onQr(listener: (qr: string | undefined) => void): () => void {
    this.qrListeners.add(listener);
    return () => this.qrListeners.delete(listener);
  }

  async start(sink: InboundSink): Promise<void> {
    this.sink = sink;
    this.stopping = false;
    this.abort = new AbortController();
    this.state = { name: 'whatsapp', state: 'starting' };
    await this.connect();
  }

  private async connect(): Promise<void> {
    const signal = this.abort.signal;
    const { state: auth, saveCreds } = await loadAuth(this.dataDir);
    // stop() may have run while the auth state loaded; a socket made now would outlive it.
    if (signal.aborted) return;
    const sock = this.factory(socketConfig({ auth, logger: this.libLog, webSocketUrl: this.cfg.webSocketUrl }));
    this.sock = sock;
    sock.ev.on('creds.update', () => {
      void saveCreds().catch((err: unknown) =>
        this.log.error({ err: describe(err) }, 'whatsapp credentials not saved'),
      );
    });
    sock.ev.on('connection.update', (u) => {
      if (sock !== this.sock) return;
      if (u.qr) this.setQr(u.qr);
      if (u.connection === 'open') {
        this.reconnects = 0;
        this.setQr(undefined);
        this.state = { name: 'whatsapp', state: 'connected', detail: sock.authState.creds.me?.id };
      }
      if (u.connection === 'close') this.onClose(u.lastDisconnect?.error);
    });
    sock.ev.on('messages.upsert', ({ messages, type }) => {
      // "append" carries history and our own sends; only "notify" is new traffic.
      if (type !== 'notify' || sock !== this.sock) return;
      for (const m of messages) this.enqueue(m, sock);
    });
  }

  private setQr(qr: string | undefined): void {
    this.currentQr = qr;
    if (qr) {
      this.state = {
        name: 'whatsapp',
        state: 'starting',
        detail: 'waiting for pairing: scan the QR code in WhatsApp > Linked devices',
      };
      if (this.cfg.printQr) {
        qrcode.generate(qr, { small: true }, (art: string) =>
          process.stderr.write(`\nWhatsApp: scan this QR code in WhatsApp > Linked devices\n${art}\n`),
        );
      }
    }
    for (const l of this.qrListeners) l(qr);
  }

  private onClose(error: Error | undefined): void {
    if (this.stopping) return;
    const code = statusOf(error);
    if (code === DisconnectReason.loggedOut) {
      this.state = {
        name: 'whatsapp',
        state: 'error',
        detail: `logged out by WhatsApp; delete ${authDir(this.dataDir)} and restart to pair again`,
      };
      return;
    }
    // 515 "restart required" follows a fresh pairing and wants an immediate reconnect.
    const wait = code === DisconnectReason.restartRequired ? 0 : Math.min(1000 * 2 ** this.reconnects, 60_000);
    this.reconnects++;
    this.state = {
      name: 'whatsapp',
      state: 'disconnected',
      detail: `${error?.message ?? 'connection closed'}; reconnecting`,
    };
    this.reconnectTimer = setTimeout(() => {
      if (!this.stopping)
        void this.connect().catch((err: unknown) => this.onClose(err instanceof Error ? err : new Error(String(err))));
    }, wait);
  }

  private enqueue(m: WAMessage, sock: WASocket): void {
    const me = sock.authState.creds.me;
    const n = normalise(m, { id: me?.id, lid: me?.lid });
    if (!n) return;
    this.remember(n.msg.platformMessageId, m);
    const sink = this.sink!;
    this.inbound = this.inbound.then(() =>
      this.accept(sink, n, m, sock).catch((err: unknown) =>
        this.log.error({ err: describe(err) }, 'whatsapp message not committed'),
      ),
    );
  }

  private async accept(sink: InboundSink, n: Normalised, m: WAMessage, sock: WASocket): Promise<void> {
    await saveIfAdmitted(
      sink,
      n.msg,
      n.media ? [n.media] : [],
      { dataDir: this.dataDir, maxBytes: this.cfg.maxAttachmentMb * 1024 * 1024 },
      async (_f, target) =>
        saveBuffer(
          target,
          await downloadMediaMessage(
            m,
            'buffer',
            {},
            { logger: this.libLog, reuploadRequest: sock.updateMediaMessage },
          ),
        ),
    );
    await commitWithRetry('whatsapp', () => sink.accept(n.msg), this.abort.signal);
  }

  private remember(id: string, m: WAMessage): void {
    this.recent.set(id, m);
    while (this.recent.size > RECENT_LIMIT) this.recent.delete(this.recent.keys().next().value as string);
  }

  private socket(): WASocket {
    if (!this.sock || this.state.state !== 'connected') {
      throw new RudderError('CHANNEL_SEND_FAILED', 'WhatsApp is not connected; the reply stays owed until it is.', {
        channel: 'whatsapp',
        permanent: false,
      });
    }
    return this.sock;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort(new Error('whatsapp channel stopping'));
    clearTimeout(this.reconnectTimer);
    this.typingKeeper.stopAll();
    // end() closes the socket without logging out, so the pairing survives a restart.
    this.sock?.end(undefined);
    this.sock = undefined;
    await this.inbound;
    this.state = { name: 'whatsapp', state: 'stopped' };
  }

  send(reply: OutboundReply, to: MessageRef): Promise<void> {
    const parts = fitParts(reply.text, WHATSAPP_TEXT_LIMIT, toWhatsApp);
    const quoted = reply.replyTo ? this.recent.get(reply.replyTo) : undefined;
    return this.serial.run(to.conversationKey, () =>
      this.progress.deliver(reply.outboxId, parts, async (text, i) => {
        await withRetry(
          () => this.socket().sendMessage(to.conversationKey, { text }, i === 0 && quoted ? { quoted } : {}),
          { channel: 'whatsapp', what: 'sendMessage', classify, describe, logger: this.log },
        );
      }),
    );
  }

  /** A reply spoken: a voice note (push-to-talk) when it is Ogg Opus, as WhatsApp plays them, else an audio file. */
  async sendVoice(to: MessageRef, voice: OutboundVoice): Promise<void> {
    const audio = await fs.promises.readFile(voice.file);
    const ptt = voice.mime === 'audio/ogg';
    const content = { audio, mimetype: ptt ? 'audio/ogg; codecs=opus' : voice.mime, ptt };
    const quoted = voice.replyTo ? this.recent.get(voice.replyTo) : undefined;
    await this.serial.run(to.conversationKey, () =>
      withRetry(() => this.socket().sendMessage(to.conversationKey, content, quoted ? { quoted } : {}), {
        channel: 'whatsapp',
        what: 'sendMessage (voice note)',
        classify,
        describe,
        logger: this.log,
      }),
    );
  }

  private keyOf(to: MessageRef): WAMessageKey | undefined {
    if (!to.platformMessageId) return undefined;
    const known = this.recent.get(to.platformMessageId)?.key;
    if (known) return known;
    const p = parsePlatformId(to.platformMessageId);
    return p ? { remoteJid: p.jid, id: p.id, fromMe: false } : undefined;
  }

  async ack(to: MessageRef, kind: AckKind, note?: string, opts?: AckOptions): Promise<void> {
    const key = this.keyOf(to);
    if (key) {
      try {
        await this.socket().sendMessage(to.conversationKey, { react: { text: ACK_EMOJI[kind], key } });
        return;
      } catch (err) {
        this.log.debug({ err: describe(err), kind }, 'whatsapp reaction failed; using the text acknowledgement');
      }
    }
    const text = opts?.reactionOnly ? undefined : ackText(kind, note);
    if (!text) return;
    const quoted = to.platformMessageId ? this.recent.get(to.platformMessageId) : undefined;
    await this.serial.run(to.conversationKey, () =>
      withRetry(() => this.socket().sendMessage(to.conversationKey, { text }, quoted ? { quoted } : {}), {
        channel: 'whatsapp',
        what: 'sendMessage',
        classify,
        describe,
        logger: this.log,
      }),
    );
  }

  typing(to: MessageRef, on: boolean): void {
    if (this.state.state === 'connected') this.typingKeeper.set(to, on);
  }

  /** A card has no buttons here; it says how to stop while its turn runs. */
  private cardText(card: CardView): string {
    return toWhatsApp(card.buttons.length ? `${cardMarkdown(card)}\n_Send /stop to stop._` : cardMarkdown(card)).slice(
      0,
      WHATSAPP_TEXT_LIMIT,
    );
  }

  /** Posts a card; the handle is its key and when it was sent (edits are shown for 15 minutes only). */
  async postCard(to: MessageRef, card: CardView): Promise<string> {
    const m = await withRetry(() => this.socket().sendMessage(to.conversationKey, { text: this.cardText(card) }), {
      channel: 'whatsapp',
      what: 'sendMessage (progress card)',
      classify,
      describe,
      logger: this.log,
      attempts: 1,
    });
    if (!m?.key)
      throw new RudderError('CHANNEL_SEND_FAILED', 'WhatsApp gave no key for the progress card.', {
        channel: 'whatsapp',
        permanent: true,
      });
    return JSON.stringify({ key: m.key, at: Date.now() });
  }

  /**
   * Edits a card through Baileys (`edit: key`); past WhatsApp's edit window it says it cannot, and the gateway posts
   * short status messages instead.
   */
  async editCard(to: MessageRef, handle: string, card: CardView): Promise<void> {
    const { key, at } = JSON.parse(handle) as { key: WAMessageKey; at: number };
    if (Date.now() - at > this.editWindowMs)
      throw new RudderError('CHANNEL_SEND_FAILED', 'WhatsApp shows edits made within 15 minutes only.', {
        channel: 'whatsapp',
        permanent: true,
      });
    await withRetry(() => this.socket().sendMessage(to.conversationKey, { text: this.cardText(card), edit: key }), {
      channel: 'whatsapp',
      what: 'sendMessage (progress card edit)',
      classify,
      describe,
      logger: this.log,
      attempts: 1,
    });
  }

  status(): ChannelStatus {
    return { ...this.state };
  }

  /** WhatsApp has no token: the probe reports whether the socket is paired and open. */
  async probe(): Promise<{ ok: boolean; detail: string }> {
    if (this.state.state === 'connected')
      return { ok: true, detail: `connected as ${this.state.detail ?? 'paired device'}` };
    if (this.currentQr)
      return { ok: false, detail: 'not paired: scan the QR code (terminal or web page) in WhatsApp > Linked devices' };
    return { ok: false, detail: this.state.detail ?? `not connected (${this.state.state})` };
  }
}
