/**
 * What SQLite costs per message: the bare inbox commit (one insertMessage, autocommit) at the
 * shipped synchronous=NORMAL and, for reference, at FULL; and every store call a message causes in
 * the real flow, timed by wrapping the store's methods.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../../tests/support/claude-rig.js';

const WRITES = new Set([
  'tx',
  'ensureConversation',
  'setSessionId',
  'setModel',
  'setQueueMode',
  'setCutoff',
  'insertMessage',
  'setState',
  'markQueued',
  'markInTurn',
  'defer',
  'updateText',
  'setExtra',
  'addOutbox',
  'markDelivered',
  'markAttempt',
  'appendEvent',
  'pruneEvents',
  'turnStarted',
  'turnEnded',
  'processStarted',
  'processExited',
]);

/** Microseconds per inbox commit, over n messages in a fresh store. */
export async function inboxCommitCost(n: number, synchronous: 'NORMAL' | 'FULL'): Promise<number> {
  const dir = tempDir('bench-sqlite');
  const store = new Store(path.join(dir, 'rudder.db'));
  store.db.pragma(`synchronous = ${synchronous}`);
  store.ensureConversation('web:c', 'web', 'c');
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    store.insertMessage({
      conversationId: 'web:c',
      channel: 'web',
      platformMessageId: `p${i}`,
      senderId: 'owner',
      text: `message ${i}`,
      extra: { senderName: 'web', chatType: 'direct' },
      sentAt: Date.now(),
      state: 'accepted',
    });
  }
  const us = ((performance.now() - start) / n) * 1000;
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return us;
}

export interface StoreTally {
  calls: number;
  commits: number;
  ms: number;
  byMethod: Record<string, { calls: number; ms: number }>;
}

/** Wraps every store method on this instance; nested calls (inside tx) count once, at the top. */
export function instrumentStore(store: Store): () => StoreTally {
  const tally: StoreTally = { calls: 0, commits: 0, ms: 0, byMethod: {} };
  let depth = 0;
  const target = store as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(store))) {
    const orig = target[name];
    if (name === 'constructor' || typeof orig !== 'function') continue;
    target[name] = (...args: unknown[]) => {
      const top = depth++ === 0;
      const t0 = top ? performance.now() : 0;
      try {
        return orig.apply(store, args);
      } finally {
        depth--;
        if (top) {
          const dt = performance.now() - t0;
          tally.calls++;
          tally.ms += dt;
          if (WRITES.has(name)) tally.commits++;
          const m = (tally.byMethod[name] ??= { calls: 0, ms: 0 });
          m.calls++;
          m.ms += dt;
        }
      }
    };
  }
  return () => tally;
}
