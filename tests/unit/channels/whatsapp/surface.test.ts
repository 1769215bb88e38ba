/**
 * WhatsApp's progress card on the real Baileys socket (sends recorded on it, see fake-whatsapp.ts):
 * posted as a message and edited with Baileys' `edit: key`; past WhatsApp's edit window, or where
 * an edit is refused, the channel says it cannot edit, so the gateway falls back to short status
 * messages.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WhatsAppChannel } from '../../../../src/channels/whatsapp/channel.js';
import { whatsappSchema } from '../../../../src/config/channels-schema.js';
import { isRudderError } from '../../../../src/errors.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { type FakeWhatsApp, startFakeWhatsApp } from '../../../support/fake-whatsapp.js';
import { recordingSink } from '../../../support/recording-sink.js';

const ME = { id: '4915550000001:3@s.whatsapp.net', lid: '987654321:3@lid', name: 'Rudder' };
const ANN = '4915551112222@s.whatsapp.net';
const card = (header: string, final = false) => ({
  header,
  lines: final ? [] : ['▶️ **Bash** `sleep 2` · 1s'],
  buttons: final ? [] : [{ label: '⏹ Stop', data: 's:abc' }],
  final,
});

describe('whatsapp progress card', () => {
  let fake: FakeWhatsApp;
  let dataDir: string;
  let channel: WhatsAppChannel | undefined;

  beforeEach(async () => {
    fake = await startFakeWhatsApp();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rudder-wap-'));
  });
  afterEach(async () => {
    await channel?.stop();
    channel = undefined;
    await fake.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (editWindowMs?: number) => {
    channel = new WhatsAppChannel({
      config: whatsappSchema.parse({ printQr: false, webSocketUrl: fake.webSocketUrl }),
      dataDir,
      logger: silentLogger(),
      socketFactory: (c) => fake.factory(c),
      editWindowMs,
    });
    await channel.start(recordingSink());
    const sock = fake.socket();
    await new Promise((r) => setImmediate(r));
    sock.ev.emit('creds.update', { me: ME });
    sock.ev.emit('connection.update', { connection: 'open' });
  };

  it('posts the card and edits it with the key Baileys returned', async () => {
    await start();
    const to = { conversationKey: ANN };
    const handle = await channel!.capabilities!.cards!.postCard(to, card('⏳ Working · 1 step · 3s'));
    expect(fake.sent[0]).toMatchObject({
      jid: ANN,
      content: { text: '⏳ Working · 1 step · 3s\n▶️ *Bash* `sleep 2` · 1s\n_Send /stop to stop._' },
    });
    await channel!.capabilities!.cards!.editCard!(to, handle, card('✓ 1 step · 5s', true));
    expect(fake.sent[1]).toMatchObject({
      jid: ANN,
      content: { text: '✓ 1 step · 5s', edit: { remoteJid: ANN, id: 'SENT1', fromMe: true } },
    });
    expect(fake.sent).toHaveLength(2);
  });

  it('says it cannot edit past the edit window, or when WhatsApp refuses the edit', async () => {
    await start(50);
    const to = { conversationKey: ANN };
    const handle = await channel!.capabilities!.cards!.postCard(to, card('⏳ Working · 1 step · 3s'));
    await new Promise((r) => setTimeout(r, 80));
    const late = await channel!.capabilities!.cards!.editCard!(to, handle, card('⏳ Working · 2 steps · 9s')).catch(
      (e: unknown) => e,
    );
    expect(isRudderError(late, 'CHANNEL_SEND_FAILED') && late.context.permanent).toBe(true);
    expect(fake.sent).toHaveLength(1);

    await channel!.stop();
    await start();
    const h2 = await channel!.capabilities!.cards!.postCard(to, card('⏳ Working · 1 step · 3s'));
    fake.failWhen((c) => c.edit !== undefined);
    const refused = await channel!.capabilities!.cards!.editCard!(to, h2, card('⏳ Working · 2 steps · 4s')).catch(
      (e: unknown) => e,
    );
    expect(isRudderError(refused, 'CHANNEL_SEND_FAILED') && refused.context.permanent).toBe(true);
  });
});
