/**
 * Why a message is held is a column (held_for), not its reason text: a store written before the
 * column existed is migrated from the reasons it wrote then (tests/unit/gateway/lane/lane.test.ts shows
 * a restart taking each hold up again from the column).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../src/store/migrations.js';
import { Store } from '../../../src/store/store.js';
import { tempDir } from '../../support/claude-rig.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

/** A store as the release before held_for left it, with messages held for each of the old reasons. */
function oldStore(file: string): void {
  const db = new Database(file);
  const before = MIGRATIONS.findIndex((m) => m.includes('held_for'));
  for (const m of MIGRATIONS.slice(0, before)) db.exec(m);
  db.pragma(`user_version = ${before}`);
  const insert = db.prepare(
    `INSERT INTO messages (id, conversation_id, channel, platform_message_id, sender_id, text, received_at, state,
       reason, retry_at, updated_at) VALUES (?, 'web:c', 'web', ?, 'owner', 'x', 0, ?, ?, 123, 0)`,
  );
  insert.run('known', 'p1', 'deferred', 'rate limited');
  insert.run('guessed', 'p2', 'deferred', 'rate limited (reset time estimated)');
  insert.run('terminal', 'p3', 'deferred', 'AGENT_UNDELIVERED');
  insert.run('waiting', 'p4', 'deferred', 'waiting for the agent terminal');
  insert.run('done', 'p5', 'answered', 'rate limited');
  db.close();
}

describe('held_for', () => {
  it('is filled from the reasons a store written before it holds, for held messages only', () => {
    const file = path.join(tempDir('held-for'), 'rudder.db');
    oldStore(file);
    store = new Store(file);
    const heldFor = (id: string) => store!.message(id)?.heldFor;
    expect(['known', 'guessed', 'terminal', 'waiting', 'done'].map(heldFor)).toEqual([
      'rate-limit',
      'rate-limit-estimated',
      'agent-terminal',
      'agent-terminal',
      null,
    ]);
  });
});
