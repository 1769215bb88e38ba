/**
 * store.groupCommit through the whole gateway (a child process, as `npm start` runs it): kill -9
 * in the middle of a burst of messages. Every message the HTTP API acknowledged (202) is in the
 * store, and after a restart each ends with one outcome and at most one reply; the agent is the
 * fake CLI, so the burst is fast and the figure is the gateway's.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_CLAUDE, tempDir, waitUntil } from '../../support/claude-rig.js';
import { startChild } from '../../support/gateway-rig.js';

const running: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.stop()));
});

const OPEN = ['accepted', 'queued', 'running', 'steering', 'deferred'];

function read(home: string) {
  const db = new Database(path.join(home, 'rudder.db'), { readonly: true });
  try {
    const states = Object.fromEntries(
      (db.prepare('SELECT id, state FROM messages').all() as Array<{ id: string; state: string }>).map((r) => [
        r.id,
        r.state,
      ]),
    );
    const replies = new Map<string, number>();
    for (const r of db
      .prepare("SELECT message_ids AS ids FROM outbox WHERE kind = 'reply' AND delivered_at IS NOT NULL")
      .all() as Array<{ ids: string }>) {
      for (const id of JSON.parse(r.ids) as string[]) replies.set(id, (replies.get(id) ?? 0) + 1);
    }
    return { states, replies };
  } finally {
    db.close();
  }
}

describe('store.groupCommit through the gateway', () => {
  it(
    'kill -9 mid-burst: every acknowledged message is stored, and after a restart each is answered, none ' + 'twice',
    async () => {
      const home = tempDir('rhome');
      const config = {
        agent: { claudeBin: FAKE_CLAUDE, env: { FAKE_CLAUDE_MODE: 'echo' } },
        store: { groupCommit: true },
      };
      const first = await startChild(config, { home });
      const acked: string[] = [];
      let killed = false;
      const sender = async (c: number) => {
        for (let i = 0; !killed; i++) {
          try {
            acked.push((await first.post(`burst-${c}`, `message ${c}-${i}`)).messageId);
          } catch {
            return; // the gateway is gone: this POST was never acknowledged
          }
        }
      };
      const senders = Array.from({ length: 8 }, (_, c) => sender(c));
      await waitUntil(() => acked.length >= 60 + Math.floor(Math.random() * 60), 60_000, 2);
      await first.kill9();
      killed = true;
      await Promise.allSettled(senders);

      const before = read(home);
      expect(acked.filter((id) => !(id in before.states))).toEqual([]);

      const second = await startChild(config, { home, cwd: first.cwd });
      running.push(second);
      await waitUntil(
        () => {
          const { states } = read(home);
          return acked.every((id) => states[id] && !OPEN.includes(states[id]!));
        },
        60_000,
        100,
      );
      const after = read(home);
      expect(acked.filter((id) => !['answered', 'steered', 'merged'].includes(after.states[id]!))).toEqual([]);
      expect(acked.filter((id) => (after.replies.get(id) ?? 0) > 1)).toEqual([]);
      await waitUntil(() => acked.every((id) => (read(home).replies.get(id) ?? 0) === 1), 30_000, 100);
    },
  );
});
