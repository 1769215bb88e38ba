/**
 * Loopback stand-ins for WhatsApp: a WebSocket endpoint that accepts Baileys' connection and stays
 * silent (so the socket lives, without a real handshake), and an HTTP media host serving files
 * encrypted with Baileys' own encryptedStream, so downloadMediaMessage decrypts them for real.
 * Baileys' wire protocol is NOT faked: the socket never completes a handshake; sendMessage and
 * sendPresenceUpdate are replaced by recorders on the real socket, and tests emit inbound events
 * on sock.ev. What is real: the adapter, Baileys' event handling, media decryption, auth storage.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encryptedStream, makeWASocket, type UserFacingSocketConfig, type WASocket } from '@whiskeysockets/baileys';
import { WebSocketServer } from 'ws';

export interface SentByBot {
  /** When the adapter handed it to the socket, epoch ms. */
  at: number;
  jid: string;
  content: any;
  options: any;
}

export interface FakeWhatsApp {
  webSocketUrl: string;
  /** Frames Baileys sent to the endpoint (the noise handshake's client hello). */
  frames: number;
  sent: SentByBot[];
  presence: Array<{ type: string; jid: string; at: number }>;
  /** Make sendMessage throw for contents matching this predicate. */
  failWhen(pred: ((content: any) => boolean) | undefined): void;
  /** The socket the channel built, once it did. */
  socket(): WASocket;
  /** Socket factory for WhatsAppChannel: the real makeWASocket, with sends recorded. */
  factory(config: UserFacingSocketConfig): WASocket;
  /** Encrypts data as WhatsApp media of the given type and serves it; returns the message fields. */
  addMedia(
    data: Buffer,
    type: 'image' | 'audio' | 'document',
  ): Promise<{
    url: string;
    mediaKey: Uint8Array;
    fileSha256: Uint8Array;
    fileEncSha256: Uint8Array;
    fileLength: number;
  }>;
  close(): Promise<void>;
}

export async function startFakeWhatsApp(): Promise<FakeWhatsApp> {
  const media = new Map<string, Buffer>();
  const server = http.createServer((req, res) => {
    const data = media.get((req.url ?? '').replace(/^\/m\//, ''));
    if (!data) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(data.length) });
    res.end(data);
  });
  const wss = new WebSocketServer({ server });
  const fake: Partial<FakeWhatsApp> & { frames: number } = { frames: 0 };
  wss.on('connection', (ws) => ws.on('message', () => fake.frames++));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const sent: SentByBot[] = [];
  const presence: Array<{ type: string; jid: string; at: number }> = [];
  let failing: ((content: any) => boolean) | undefined;
  let built: WASocket | undefined;
  let n = 0;

  return Object.assign(fake, {
    webSocketUrl: `ws://127.0.0.1:${port}/ws/chat`,
    sent,
    presence,
    failWhen(pred: ((content: any) => boolean) | undefined) {
      failing = pred;
    },
    socket() {
      if (!built) throw new Error('no socket built yet');
      return built;
    },
    factory(config: UserFacingSocketConfig) {
      // A long connect timeout keeps the silent handshake from closing the socket mid-test (or mid-benchmark).
      const sock = makeWASocket({ ...config, connectTimeoutMs: 2 * 3600_000 });
      sock.sendMessage = (async (jid: string, content: any, options: any) => {
        if (failing?.(content)) throw Object.assign(new Error('reaction not allowed'), { output: { statusCode: 400 } });
        sent.push({ at: Date.now(), jid, content, options });
        return { key: { remoteJid: jid, id: `SENT${sent.length}`, fromMe: true } };
      }) as WASocket['sendMessage'];
      sock.sendPresenceUpdate = (async (type: string, jid: string) => {
        presence.push({ type, jid, at: Date.now() });
      }) as WASocket['sendPresenceUpdate'];
      built = sock;
      return sock;
    },
    async addMedia(data: Buffer, type: 'image' | 'audio' | 'document') {
      const enc = await encryptedStream(data, type);
      const name = `media-${++n}.enc`;
      media.set(name, fs.readFileSync(enc.encFilePath));
      fs.rmSync(enc.encFilePath, { force: true });
      return {
        url: `http://127.0.0.1:${port}/m/${name}`,
        mediaKey: enc.mediaKey,
        fileSha256: enc.fileSha256,
        fileEncSha256: enc.fileEncSha256,
        fileLength: enc.fileLength,
      };
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  }) as FakeWhatsApp;
}
