/**
 * store.groupCommit: the writes of one event-loop turn share one transaction, committed at the end
 * of the turn; committed() and afterCommit() wait for it. Checked with a second connection (what a
 * crash would leave on disk) and with kill -9 of a writer process: every write it was told was
 * committed is in the database afterwards.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/load.js';
import { Store } from '../../../src/store/store.js';
import { tempDir } from '../../support/claude-rig.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const WRITER = path.join(HERE, '../../support/group-writer.mjs');

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

function open(groupCommit: boolean) {
  const file = path.join(tempDir('group'), 'rudder.db');
  const store = new Store(file, { groupCommit });
  stores.push(store);
  store.ensureConversation('web:c', 'web', 'c');
  // What another process (or the database after a crash) sees: only committed writes.
  const reader = new Database(file, { readonly: true });
  const count = () => (reader.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;
  return { store, count, reader };
}

const insert = (store: Store, id: string) =>
  store.insertMessage({
    conversationId: 'web:c',
    channel: 'web',
    platformMessageId: id,
    senderId: 'owner',
    text: id,
    state: 'accepted',
  });
const turn = () => new Promise((r) => setImmediate(r));

describe('store.groupCommit', () => {
  it('is on by default and a boolean', () => {
    expect(parseConfig({}).store.groupCommit).toBe(true);
    expect(parseConfig({ store: { groupCommit: false } }).store.groupCommit).toBe(false);
    expect(() => parseConfig({ store: { groupCommit: 'yes' } })).toThrow(/store\.groupCommit/);
  });

  it('off: each write is committed at once, and committed() and afterCommit() do not wait', async () => {
    const { store, count, reader } = open(false);
    insert(store, 'a');
    expect(count()).toBe(1);
    const order: string[] = [];
    store.afterCommit(() => order.push('after'));
    order.push('next');
    expect(order).toEqual(['after', 'next']);
    await store.committed();
    reader.close();
  });

  it(
    'on: the writes of one loop turn are one commit at its end; committed() and afterCommit() follow it, in ' + 'order',
    async () => {
      const { store, count, reader } = open(true);
      const order: string[] = [];
      insert(store, 'a');
      store.tx(() => {
        insert(store, 'b');
        store.appendEvent('web:c', 'ack', null, { kind: 'received' });
      });
      insert(store, 'c');
      store.afterCommit(() => order.push(`after 1 sees ${count()}`));
      const done = store.committed().then(() => order.push(`committed sees ${count()}`));
      store.afterCommit(() => order.push('after 2'));
      // Nothing is on disk yet, but the writer reads its own writes.
      expect(count()).toBe(0);
      expect(store.messageByPlatformId('web', 'c')).toBeDefined();
      expect(store.db.inTransaction).toBe(true);
      await done;
      // afterCommit runs at the commit itself; what awaited committed() goes on right after.
      expect(order).toEqual(['after 1 sees 3', 'after 2', 'committed sees 3']);
      expect(store.db.inTransaction).toBe(false);
      // The next turn's writes are the next group.
      insert(store, 'd');
      expect(count()).toBe(3);
      await turn();
      await turn();
      expect(count()).toBe(4);
      reader.close();
    },
  );

  it('on: a failing statement keeps the rest of its group, and close() commits what is open', async () => {
    const { store, count, reader } = open(true);
    insert(store, 'a');
    expect(() =>
      store.tx(() => {
        insert(store, 'b');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    insert(store, 'c');
    await store.close();
    expect(count()).toBe(2);
    expect(reader.prepare('SELECT platform_message_id AS p FROM messages ORDER BY seq').all()).toEqual([
      { p: 'a' },
      { p: 'c' },
    ]);
    reader.close();
  });

  it('on: after kill -9 of a writer, every write it was told was committed is in the database', async () => {
    for (let round = 0; round < 4; round++) {
      const file = path.join(tempDir('group-kill'), 'rudder.db');
      const child = spawn(process.execPath, [WRITER, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      const acked: string[] = [];
      await new Promise<void>((resolve, reject) => {
        child.on('exit', () => resolve());
        child.on('error', reject);
        // Killed at a random point once a few batches were told committed: mid-batch, mid-commit, anywhere.
        const killAfter = 3 + Math.floor(Math.random() * 20);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString('utf8');
          const lines = out.split('\n');
          out = lines.pop()!;
          for (const l of lines) acked.push(...l.split(' ').filter(Boolean));
          if (acked.length >= killAfter * 100 && !child.killed)
            setTimeout(() => child.kill('SIGKILL'), Math.random() * 5);
        });
      });
      const db = new Database(file, { readonly: true });
      const stored = new Set(
        (db.prepare('SELECT platform_message_id AS p FROM messages').all() as Array<{ p: string }>).map((r) => r.p),
      );
      const ackEvents = (db.prepare("SELECT count(*) AS n FROM events WHERE type = 'ack'").get() as { n: number }).n;
      db.close();
      expect(acked.length).toBeGreaterThan(0);
      expect(acked.filter((id) => !stored.has(id))).toEqual([]);
      // Groups are whole: a message and its event were committed together or not at all.
      expect(ackEvents).toBe(stored.size);
    }
  });
});
