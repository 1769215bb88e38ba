/**
 * A chat platform confirmed a reply: the outbox row is marked delivered and that mark is committed
 * at once, not at the end of the loop turn (store.groupCommit), so a kill -9 of the gateway right
 * after the platform's answer does not leave it owed and send it a second time. The web page's
 * reply is the stored event itself and keeps sharing the loop turn's commit. Checked with a second
 * connection (what a crash would leave on disk) at the first moment after the platform's answer
 * that a crash could land on: the next macrotask.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Channel, ChannelCapabilities, ChannelStatus, OutboundReply } from '../../../../src/channels/channel.js';
import { EventBus } from '../../../../src/gateway/bus.js';
import { Delivery } from '../../../../src/gateway/replies/delivery.js';
import { ReplyGate } from '../../../../src/gateway/replies/gate.js';
import { VoiceNotes } from '../../../../src/gateway/replies/voice-notes.js';
import { silentLogger } from '../../../../src/ops/logger.js';
import { Store } from '../../../../src/store/store.js';
import { tempDir, waitUntil } from '../../../support/claude-rig.js';

const closing: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of closing.splice(0)) await c();
});

/** A platform that answers at once and, on the turn after its answer, reads what the database holds. */
class Platform implements Channel {
  readonly name = 'chat';
  readonly seen: Array<{ outboxId: string; deliveredOnDisk: boolean }> = [];
  constructor(
    readonly capabilities: ChannelCapabilities,
    private readonly onDisk: (outboxId: string) => boolean,
  ) {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  async ack(): Promise<void> {}
  status(): ChannelStatus {
    return { name: this.name, state: 'connected' };
  }
  async send(reply: OutboundReply): Promise<void> {
    setImmediate(() => this.seen.push({ outboxId: reply.outboxId, deliveredOnDisk: this.onDisk(reply.outboxId) }));
  }
}

function rig(capabilities: ChannelCapabilities) {
  const dir = tempDir('delivered');
  const file = path.join(dir, 'rudder.db');
  const store = new Store(file, { groupCommit: true });
  const reader = new Database(file, { readonly: true });
  closing.push(
    () => reader.close(),
    () => store.close(),
  );
  const onDisk = (id: string) =>
    (reader.prepare('SELECT delivered_at FROM outbox WHERE id = ?').get(id) as { delivered_at: number | null })
      .delivered_at !== null;
  const platform = new Platform(capabilities, onDisk);
  const voice = new VoiceNotes({
    dir: path.join(dir, 'voice'),
    tts: () => undefined,
    log: silentLogger(),
    markPrefix: 'x',
  });
  const delivery = new Delivery(
    store,
    new EventBus(store),
    () => ({ channel: platform, key: 'k' }),
    silentLogger(),
    new ReplyGate(),
    voice,
  );
  closing.push(() => delivery.stop());
  store.ensureConversation('chat:k', 'chat', 'k');
  return { store, platform, delivery };
}

const owe = (store: Store, text: string) =>
  store.addOutbox({ conversationId: 'chat:k', kind: 'reply', messageIds: ['m1'], text });

describe('a reply the platform confirmed', () => {
  it('is committed as delivered before anything else runs, so a crash then does not send it again', async () => {
    const { store, platform, delivery } = rig({});
    const rows = [owe(store, 'one'), owe(store, 'two')];
    await store.committed();
    delivery.kick('chat:k');
    await waitUntil(() => platform.seen.length === 2, 5_000);
    expect(platform.seen).toEqual(rows.map((r) => ({ outboxId: r.id, deliveredOnDisk: true })));
    expect(store.owedFor('chat:k')).toEqual([]);
  });

  it("on the web page (the stored event is the reply) shares the loop turn's commit", async () => {
    const { store, platform, delivery } = rig({ drawsTurns: true, deliveredInStore: true });
    const row = owe(store, 'one');
    await store.committed();
    delivery.kick('chat:k');
    await waitUntil(() => platform.seen.length === 1, 5_000);
    // The check ran before the loop turn's commit: the mark was not on disk yet, and is once the turn ends.
    expect(platform.seen).toEqual([{ outboxId: row.id, deliveredOnDisk: false }]);
    await store.committed();
    expect(store.owedFor('chat:k')).toEqual([]);
  });
});
