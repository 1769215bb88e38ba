/**
 * The WhatsApp adapter, on Baileys (WhatsApp Web multi-device). Paired by QR code (pairing.ts). Auth
 * state lives in <dataDir>/whatsapp-auth. Baileys does not reconnect by itself: a closed socket is
 * opened again here, with a backoff. Baileys acknowledges receipt to WhatsApp itself, before Rudder sees
 * a message; commits are retried so a failing inbox does not lose it.
 */
import {
  type ConnectionState,
  DisconnectReason,
  downloadMediaMessage,
  type WAMessage,
  type WASocket,
} from '@whiskeysockets/baileys';
import type { WhatsAppConfig } from '../../config/channels-schema.js';
import type { Logger } from '../../ops/logger.js';
import type { AckKind, ChannelCapabilities, ChannelStatus, InboundSink, MessageRef } from '../channel.js';
import { ACK_EMOJI } from '../common/ack-text.js';
import { saveBuffer, saveIfAdmitted } from '../common/attachments.js';
import { whileRunning } from '../common/errors.js';
import { toWhatsApp } from '../common/markdown/whatsapp.js';
import { commitWithRetry, withRetry } from '../common/retry.js';
import { fitParts } from '../common/split.js';
import type { ChannelAdapter, ChannelLink, ProbeResult, TypingCalls } from '../runtime/adapter.js';
import { classify, describe, statusOf } from './errors.js';
import { type Normalised, normalise } from './inbound.js';
import type { PairingCode } from './pairing.js';
import { RecentMessages } from './recent.js';
import {
  authDir,
  type BaileysLogger,
  baileysLogger,
  defaultSocketFactory,
  loadAuth,
  type SocketFactory,
  socketConfig,
} from './socket.js';
import { WHATSAPP_TEXT_LIMIT, WhatsAppSurfaces } from './surface.js';
import { WhatsAppVoice } from './voice.js';

/** "composing" fades after about 10 seconds without a refresh. */
const TYPING_INTERVAL_MS = 8_000;
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

/** What a connect was given: where messages go, and the signal that says the channel stopped. */
interface Run {
  sink: InboundSink;
  signal: AbortSignal;
}

export class WhatsAppAdapter implements ChannelAdapter {
  readonly capabilities: ChannelCapabilities;
  readonly typing: TypingCalls;
  private readonly libLog: BaileysLogger;
  private sock?: WASocket;
  /** The socket is open: sends go out; otherwise replies stay owed. */
  private open = false;
  private run?: Run;
  private reconnects = 0;
  private reconnectTimer?: NodeJS.Timeout;
  private readonly recent = new RecentMessages();
  classify = classify;
  describe = describe;

  constructor(
    private readonly o: WhatsAppChannelOptions,
    private readonly link: ChannelLink,
    private readonly pairing: PairingCode,
  ) {
    this.libLog = baileysLogger(link.log);
    const deps = { link, client: () => this.socket() };
    const cards = new WhatsAppSurfaces({ ...deps, editWindowMs: o.editWindowMs ?? EDIT_WINDOW_MS });
    this.capabilities = { cards, voice: new WhatsAppVoice(deps, this.recent), textLimit: WHATSAPP_TEXT_LIMIT };
    this.typing = {
      intervalMs: TYPING_INTERVAL_MS,
      ready: () => this.open,
      send: (to) => this.socket().sendPresenceUpdate('composing', to.conversationKey),
      clear: (to) => this.socket().sendPresenceUpdate('paused', to.conversationKey),
    };
  }

  private socket(): WASocket {
    const open = this.open ? this.sock : undefined;
    return whileRunning(open, 'whatsapp', 'WhatsApp is not connected; the reply stays owed until it is.');
  }

  /** Resolves once the socket is made; it reports 'connected' when WhatsApp opens it (after a pairing). */
  async connect(sink: InboundSink, signal: AbortSignal): Promise<void> {
    this.run = { sink, signal };
    this.open = false;
    await this.openSocket(this.run);
  }

  private async openSocket(run: Run): Promise<void> {
    const { state: auth, saveCreds } = await loadAuth(this.o.dataDir);
    // The channel may have stopped while the auth state loaded; a socket made now would outlive it.
    if (run.signal.aborted) return;
    const factory = this.o.socketFactory ?? defaultSocketFactory;
    const sock = factory(socketConfig({ auth, logger: this.libLog, webSocketUrl: this.o.config.webSocketUrl }));
    this.sock = sock;
    sock.ev.on('creds.update', () => {
      void saveCreds().catch((err: unknown) =>
        this.link.log.error({ err: describe(err) }, 'whatsapp credentials not saved'),
      );
    });
    sock.ev.on('connection.update', (u) => {
      if (sock === this.sock) this.onUpdate(sock, u);
    });
    sock.ev.on('messages.upsert', ({ messages, type }) => {
      // "append" carries history and our own sends; only "notify" is new traffic.
      if (type !== 'notify' || sock !== this.sock) return;
      for (const m of messages) this.enqueue(m, sock, run);
    });
  }

  private onUpdate(sock: WASocket, u: Partial<ConnectionState>): void {
    if (u.qr) {
      this.open = false;
      this.link.report('starting', 'waiting for pairing: scan the QR code in WhatsApp > Linked devices');
      this.pairing.show(u.qr);
    }
    if (u.connection === 'open') {
      this.reconnects = 0;
      this.pairing.show(undefined);
      this.open = true;
      this.link.report('connected', sock.authState.creds.me?.id);
    }
    if (u.connection === 'close') this.onClose(u.lastDisconnect?.error);
  }

  /** A closed socket is opened again with a backoff, unless WhatsApp logged the device out. */
  private onClose(error: Error | undefined): void {
    const run = this.run;
    if (!run || run.signal.aborted) return;
    this.open = false;
    const code = statusOf(error);
    if (code === DisconnectReason.loggedOut) {
      const detail = `logged out by WhatsApp; delete ${authDir(this.o.dataDir)} and restart to pair again`;
      this.link.report('error', detail);
      return;
    }
    // 515 "restart required" follows a fresh pairing and wants an immediate reconnect.
    const wait = code === DisconnectReason.restartRequired ? 0 : Math.min(1000 * 2 ** this.reconnects, 60_000);
    this.reconnects++;
    this.link.report('disconnected', `${error?.message ?? 'connection closed'}; reconnecting`);
    this.reconnectTimer = setTimeout(() => {
      if (run.signal.aborted) return;
      void this.openSocket(run).catch((err: unknown) =>
        this.onClose(err instanceof Error ? err : new Error(String(err))),
      );
    }, wait);
  }

  private enqueue(m: WAMessage, sock: WASocket, run: Run): void {
    const me = sock.authState.creds.me;
    const n = normalise(m, { id: me?.id, lid: me?.lid });
    if (!n) return;
    this.recent.remember(n.msg.platformMessageId, m);
    this.link
      .inbound(() => this.receive(n, m, sock, run))
      .catch((err: unknown) => this.link.log.error({ err: describe(err) }, 'whatsapp message not committed'));
  }

  /** Media is downloaded (and decrypted) from the message itself; the commit is retried until the channel stops. */
  private async receive(n: Normalised, m: WAMessage, sock: WASocket, run: Run): Promise<void> {
    const download = () =>
      downloadMediaMessage(m, 'buffer', {}, { logger: this.libLog, reuploadRequest: sock.updateMediaMessage });
    await saveIfAdmitted(
      run.sink,
      n.msg,
      n.media ? [n.media] : [],
      { dataDir: this.o.dataDir, maxBytes: this.o.config.maxAttachmentMb * 1024 * 1024 },
      async (_f, target) => saveBuffer(target, await download()),
    );
    await commitWithRetry('whatsapp', () => run.sink.accept(n.msg), run.signal);
  }

  async disconnect(): Promise<void> {
    clearTimeout(this.reconnectTimer);
    this.open = false;
    // end() closes the socket without logging out, so the pairing survives a restart.
    this.sock?.end(undefined);
    this.sock = undefined;
  }

  render(markdown: string): string[] {
    return fitParts(markdown, WHATSAPP_TEXT_LIMIT, toWhatsApp);
  }

  async sendPart(to: MessageRef, text: string, _index: number, replyTo: string | undefined): Promise<void> {
    await this.sendText(to.conversationKey, text, replyTo);
  }

  async sendAck(to: MessageRef, text: string): Promise<void> {
    await this.sendText(to.conversationKey, text, to.platformMessageId);
  }

  /** A text message, quoting the message it answers when that is one seen lately. */
  private async sendText(jid: string, text: string, quote: string | undefined): Promise<void> {
    const quoting = this.recent.quoting(quote);
    await withRetry(() => this.socket().sendMessage(jid, { text }, quoting), this.link.retry('sendMessage'));
  }

  async react(to: MessageRef, kind: AckKind): Promise<boolean> {
    const key = this.recent.keyOf(to.platformMessageId);
    if (!key) return false;
    await this.socket().sendMessage(to.conversationKey, { react: { text: ACK_EMOJI[kind], key } });
    return true;
  }

  /** WhatsApp has no token: the probe reports whether the socket is paired and open. */
  async probe(status: ChannelStatus): Promise<ProbeResult> {
    if (status.state === 'connected') return { ok: true, detail: `connected as ${status.detail ?? 'paired device'}` };
    if (this.pairing.qr())
      return { ok: false, detail: 'not paired: scan the QR code (terminal or web page) in WhatsApp > Linked devices' };
    return { ok: false, detail: status.detail ?? `not connected (${status.state})` };
  }
}
