/**
 * The WhatsApp channel with the real Baileys socket, but Baileys' wire protocol is not faked: the
 * socket never completes a handshake. Inbound traffic is emitted on sock.ev as Baileys would, and
 * sendMessage / sendPresenceUpdate are replaced on the real socket by recorders. Media downloads
 * are real (encrypted files from a loopback host).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { WAMessage, WASocket } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WhatsAppChannel } from '../../../../src/channels/whatsapp/channel.js';
import { whatsappSchema } from '../../../../src/config/channels-schema.js';
import { isRudderError } from '../../../../src/errors.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { type FakeWhatsApp, startFakeWhatsApp } from '../../../support/fake-whatsapp.js';
import { recordingSink } from '../../../support/recording-sink.js';

const ME = { id: '4915550000001:3@s.whatsapp.net', lid: '987654321:3@lid', name: 'Rudder' };
const ANN = '4915551112222@s.whatsapp.net';
const GROUP = '120363000000000001@g.us';

describe(
  'whatsapp channel on a real Baileys socket without its wire protocol: inbound via sock.ev, sends ' +
    'recorded on the socket',
  () => {
    let fake: FakeWhatsApp;
    let dataDir: string;
    let channel: WhatsAppChannel | undefined;

    beforeEach(async () => {
      fake = await startFakeWhatsApp();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-wa-'));
    });

    afterEach(async () => {
      await channel?.stop();
      channel = undefined;
      await fake.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    let built = 0;

    /** Starts the channel and plays the pairing: a QR code, then the connection opening. */
    const startPaired = async (sink = recordingSink()) => {
      const config = whatsappSchema.parse({
        owners: ['4915551112222'],
        printQr: false,
        webSocketUrl: fake.webSocketUrl,
      });
      built = 0;
      const factory = (c: Parameters<FakeWhatsApp['factory']>[0]) => {
        built++;
        return fake.factory(c);
      };
      channel = new WhatsAppChannel({ config, dataDir, logger: silentLogger(), socketFactory: factory });
      await channel.start(sink);
      const sock = fake.socket();
      await pair(sock);
      return { sink, sock };
    };

    /** What Baileys emits when a QR scan succeeds: the account's identity, then the open connection. */
    const pair = async (sock: WASocket) => {
      // Let the fresh socket's start-up tick pass first, as it would before anyone could scan.
      await new Promise((r) => setImmediate(r));
      sock.ev.emit('creds.update', { me: ME });
      sock.ev.emit('connection.update', { connection: 'open' });
    };

    const upsert = (sock: WASocket, ...messages: WAMessage[]) =>
      sock.ev.emit('messages.upsert', { messages, type: 'notify' });

    it('exposes the pairing QR code, then reports connected; auth state lives in the data dir', async () => {
      const config = whatsappSchema.parse({ printQr: false, webSocketUrl: fake.webSocketUrl });
      channel = new WhatsAppChannel({ config, dataDir, logger: silentLogger(), socketFactory: (c) => fake.factory(c) });
      const seen: Array<string | undefined> = [];
      channel.onQr((qr) => seen.push(qr));
      await channel.start(recordingSink());
      const sock = fake.socket();
      sock.ev.emit('connection.update', { qr: '2@fake-qr-payload' });
      expect(channel.qr()).toBe('2@fake-qr-payload');
      expect(channel.status().detail).toContain('QR');
      expect(await channel.probe()).toMatchObject({ ok: false });
      await pair(sock);
      expect(channel.qr()).toBeUndefined();
      expect(seen).toEqual(['2@fake-qr-payload', undefined]);
      expect(channel.status().state).toBe('connected');
      await vi.waitFor(() =>
        expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'whatsapp-auth', 'creds.json'), 'utf8')).me.id).toBe(
          ME.id,
        ),
      );
    });

    it('normalises a DM, a group mention, a reply with its quote, an image, a voice note and an edit', async () => {
      const { sink, sock } = await startPaired();
      const img = await fake.addMedia(Buffer.from('JPEG-BYTES'), 'image');
      const ptt = await fake.addMedia(Buffer.from('OPUS-BYTES'), 'audio');
      const t = 1_700_000_000;
      upsert(
        sock,
        {
          key: { remoteJid: ANN, id: 'A1', fromMe: false },
          pushName: 'Ann',
          messageTimestamp: t,
          message: { conversation: 'hello' },
        },
        {
          key: { remoteJid: GROUP, id: 'A2', fromMe: false, participant: ANN },
          pushName: 'Ann',
          messageTimestamp: t + 1,
          message: {
            extendedTextMessage: {
              text: '@4915550000001 check the logs',
              contextInfo: { mentionedJid: ['4915550000001@s.whatsapp.net'] },
            },
          },
        },
        {
          key: { remoteJid: GROUP, id: 'A3', fromMe: false, participant: ANN },
          messageTimestamp: t + 2,
          message: {
            extendedTextMessage: {
              text: 'yes go ahead',
              contextInfo: {
                stanzaId: 'B9',
                participant: '4915550000001@s.whatsapp.net',
                quotedMessage: { conversation: 'Shall I deploy?' },
              },
            },
          },
        },
        {
          key: { remoteJid: ANN, id: 'A4', fromMe: false },
          messageTimestamp: t + 3,
          message: { imageMessage: { ...img, mimetype: 'image/jpeg', caption: 'what is this?' } },
        },
        {
          key: { remoteJid: ANN, id: 'A5', fromMe: false },
          messageTimestamp: t + 4,
          message: { audioMessage: { ...ptt, mimetype: 'audio/ogg; codecs=opus', ptt: true, seconds: 2 } },
        },
        {
          key: { remoteJid: ANN, id: 'A6', fromMe: false },
          messageTimestamp: t + 5,
          message: {
            protocolMessage: {
              type: 14,
              key: { remoteJid: ANN, id: 'A1', fromMe: false },
              editedMessage: { conversation: 'hello, edited' },
            },
          },
        },
        {
          key: { remoteJid: GROUP, id: 'A7', fromMe: false, participant: ANN },
          messageTimestamp: t + 6,
          message: { conversation: 'lunch?' },
        },
        {
          key: { remoteJid: ANN, id: 'A8', fromMe: true },
          messageTimestamp: t + 7,
          message: { conversation: 'my own message' },
        },
      );
      const got = await sink.waitForCount(7);
      const [dm, mention, reply, image, voice, edit, chatter] = got;
      expect(dm).toMatchObject({
        channel: 'whatsapp',
        platformMessageId: `${ANN}/A1`,
        conversationKey: ANN,
        chatType: 'direct',
        text: 'hello',
        sender: { id: '4915551112222', name: 'Ann' },
      });
      expect(mention).toMatchObject({
        conversationKey: GROUP,
        chatType: 'group',
        addressed: true,
        text: 'check the logs',
      });
      expect(reply).toMatchObject({ addressed: true, quoted: { text: 'Shall I deploy?', author: '4915550000001' } });
      expect(image!.text).toBe('what is this?');
      expect(image!.attachments![0]).toMatchObject({ kind: 'image', mime: 'image/jpeg' });
      expect(fs.readFileSync(image!.attachments![0]!.path, 'utf8')).toBe('JPEG-BYTES');
      expect(image!.attachments![0]!.path.startsWith(path.join(dataDir, 'attachments', 'whatsapp'))).toBe(true);
      expect(voice!.attachments![0]).toMatchObject({ kind: 'voice' });
      expect(fs.readFileSync(voice!.attachments![0]!.path, 'utf8')).toBe('OPUS-BYTES');
      expect(edit).toMatchObject({ editOf: `${ANN}/A1`, text: 'hello, edited' });
      expect(edit!.platformMessageId).not.toBe(`${ANN}/A1`);
      expect(chatter).toMatchObject({ addressed: false });
      expect(sink.messages).toHaveLength(7);
    });

    it('downloads no media for a sender the sink does not admit', async () => {
      const sink = recordingSink();
      const BOB = '4915559998888@s.whatsapp.net';
      sink.refuse((m) => m.sender.id === '4915559998888');
      const { sock } = await startPaired(sink);
      const img = await fake.addMedia(Buffer.from('JPEG-BYTES'), 'image');
      upsert(
        sock,
        {
          key: { remoteJid: BOB, id: 'S1', fromMe: false },
          messageTimestamp: 1_700_000_100,
          message: { imageMessage: { ...img, mimetype: 'image/jpeg', caption: 'from a stranger' } },
        },
        {
          key: { remoteJid: ANN, id: 'S2', fromMe: false },
          messageTimestamp: 1_700_000_101,
          message: { imageMessage: { ...img, mimetype: 'image/jpeg', caption: 'from the owner' } },
        },
      );
      const [stranger, owner] = await sink.waitForCount(2);
      expect(stranger).toMatchObject({ text: 'from a stranger' });
      expect(stranger!.attachments).toBeUndefined();
      expect(fs.readFileSync(owner!.attachments![0]!.path, 'utf8')).toBe('JPEG-BYTES');
      const saved = fs
        .readdirSync(path.join(dataDir, 'attachments'), { recursive: true, withFileTypes: true })
        .filter((d) => d.isFile());
      expect(saved).toHaveLength(1);
    });

    it('splits at 4096 with a code block reopened, converts Markdown, quotes the message replied to', async () => {
      const { sink, sock } = await startPaired();
      upsert(sock, { key: { remoteJid: ANN, id: 'Q1', fromMe: false }, message: { conversation: 'show me' } });
      await sink.waitForCount(1);
      const code = Array.from({ length: 250 }, (_, i) => `SELECT ${i} FROM table_${i}; -- padding`).join('\n');
      await channel!.send(
        { outboxId: 'o1', text: `**Query**:\n\`\`\`sql\n${code}\n\`\`\``, replyTo: `${ANN}/Q1` },
        { conversationKey: ANN },
      );
      const texts = fake.sent.map((s) => String(s.content.text));
      expect(texts.length).toBeGreaterThan(2);
      for (const t of texts) {
        expect(t.length).toBeLessThanOrEqual(4096);
        expect((t.match(/```/g) ?? []).length % 2).toBe(0);
      }
      expect(texts[0]!.startsWith('*Query*:\n```\n')).toBe(true);
      expect(texts[1]!.startsWith('```\n')).toBe(true);
      expect(fake.sent[0]!.options.quoted.key.id).toBe('Q1');
      expect(fake.sent[1]!.options.quoted).toBeUndefined();
      const lines = texts.flatMap((t) => t.split('\n')).filter((l) => l.startsWith('SELECT'));
      expect(lines).toEqual(code.split('\n'));
    });

    it('reacts ➡️ on a steered message with its full key, and falls back to text when the reaction fails', async () => {
      const { sink, sock } = await startPaired();
      upsert(sock, {
        key: { remoteJid: GROUP, id: 'S1', fromMe: false, participant: ANN },
        message: { conversation: '@4915550000001 also add tests' },
      });
      await sink.waitForCount(1);
      const to = { conversationKey: GROUP, platformMessageId: `${GROUP}/S1` };
      await channel!.ack(to, 'steered', 'also add tests');
      expect(fake.sent[0]!.content.react).toMatchObject({
        text: '➡️',
        key: { remoteJid: GROUP, id: 'S1', participant: ANN },
      });
      fake.failWhen((c) => c.react !== undefined);
      await channel!.ack(to, 'steered', 'also add tests');
      expect(fake.sent[1]!.content.text).toBe('➡️ got it: also add tests');
    });

    it('keeps "composing" presence while typing and pauses after', async () => {
      await startPaired();
      channel!.typing({ conversationKey: ANN }, true);
      channel!.typing({ conversationKey: ANN }, false);
      await new Promise((r) => setImmediate(r));
      expect(fake.presence.map(({ type, jid }) => ({ type, jid }))).toEqual([
        { type: 'composing', jid: ANN },
        { type: 'paused', jid: ANN },
      ]);
    });

    it('makes no socket after stop() when a reconnect was loading its auth state', async () => {
      const { sock } = await startPaired();
      // 515 "restart required" reconnects at once, through a timer.
      sock.ev.emit('connection.update', {
        connection: 'close',
        lastDisconnect: {
          error: Object.assign(new Error('restart required'), { output: { statusCode: 515 } }),
          date: new Date(),
        },
      });
      await new Promise((r) => setTimeout(r, 0));
      // The reconnect timer has fired and awaits the auth state on disk.
      await channel!.stop();
      await new Promise((r) => setTimeout(r, 200));
      expect(built).toBe(1);
    });

    it('stops promptly while an inbox commit is being retried', async () => {
      const log: string[] = [];
      const sink = recordingSink(log);
      sink.failNext(100);
      const { sock } = await startPaired(sink);
      upsert(sock, { key: { remoteJid: ANN, id: 'R1', fromMe: false }, message: { conversation: 'commit me' } });
      await vi.waitFor(() => expect(log).toContain(`accept-failed ${ANN}/R1`));
      const started = Date.now();
      await channel!.stop();
      // Six tries with backoff would take over 6 s; stopping ends the wait.
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('keeps replies owed while disconnected and reports a logout as an error with the fix', async () => {
      const { sock } = await startPaired();
      sock.ev.emit('connection.update', {
        connection: 'close',
        lastDisconnect: {
          error: Object.assign(new Error('logged out'), { output: { statusCode: 401 } }),
          date: new Date(),
        },
      });
      expect(channel!.status().state).toBe('error');
      expect(channel!.status().detail).toContain('whatsapp-auth');
      const err = await channel!
        .send({ outboxId: 'o9', text: 'hi' }, { conversationKey: ANN })
        .catch((e: unknown) => e);
      expect(isRudderError(err, 'CHANNEL_SEND_FAILED')).toBe(true);
      expect((err as { context: { permanent: boolean } }).context.permanent).toBe(false);
    });
  },
);
