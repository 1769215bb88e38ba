/**
 * What turns cost, in the store: a store written before costs were kept opens with its turns
 * unchanged (no cost, not counted), a turn's usage is kept column for column, an unknown cost stays
 * NULL (never 0), and the sums per day, project and conversation count what each should.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../src/store/migrations.js';
import { Store } from '../../../src/store/store.js';
import type { TurnCost } from '../../../src/store/types.js';
import { tempDir } from '../../support/claude-rig.js';

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const cost = (c: Partial<TurnCost>): TurnCost => ({
  inputTokens: 10,
  outputTokens: 5,
  cacheReadTokens: 0,
  cacheCreationTokens: 0,
  costUsd: 0.01,
  models: null,
  durationMs: 100,
  ...c,
});

describe('turn costs in the store', () => {
  it('a store from before costs opens with its turns uncounted', () => {
    const file = path.join(tempDir('costs-old'), 'rudder.db');
    const db = new Database(file);
    const before = MIGRATIONS.findIndex((m) => m.includes('cost_usd'));
    for (const m of MIGRATIONS.slice(0, before)) db.exec(m);
    db.pragma(`user_version = ${before}`);
    db.prepare(
      "INSERT INTO turns (id, conversation_id, started_at, ended_at, outcome, input_ids) VALUES ('old', 'web:c', 1, " +
        "?, 'answered', '[]')",
    ).run(Date.now());
    db.close();
    store = new Store(file);
    expect(store.turn('old')).toMatchObject({ id: 'old', project: null, cost: null });
    expect(store.spend.sum(0, Date.now() + 1000)).toMatchObject({ usd: 0, turns: 0 });
  });

  it('keeps each turn’s usage and sums it per day, project and conversation; unknown cost stays null', () => {
    store = new Store(path.join(tempDir('costs'), 'rudder.db'));
    const s = store;
    const models = {
      'claude-x': { inputTokens: 10, outputTokens: 5, cacheReadTokens: 1, cacheCreationTokens: 2, costUsd: 0.25 },
    };
    const turns: Array<[string, string, string, TurnCost | undefined]> = [
      ['t1', 'web:a', 'p1', cost({ costUsd: 0.25, cacheReadTokens: 1, cacheCreationTokens: 2, models })],
      ['t2', 'web:a', 'p1', cost({ costUsd: 0.5 })],
      ['t3', 'web:b', 'p2', cost({ costUsd: null, inputTokens: 100, outputTokens: 50 })],
      ['t4', 'web:b', 'p2', undefined],
    ];
    for (const [id, conv, project, c] of turns) {
      s.turnStarted(id, conv, [], null, project);
      s.turnEnded(id, c ? 'answered' : 'failed', 0, [], null, c ? null : 'AGENT_CRASHED');
      if (c) s.turnCost(id, c);
    }
    expect(s.turn('t1')).toMatchObject({ project: 'p1', cost: { costUsd: 0.25, cacheReadTokens: 1, models } });
    expect(s.turn('t3')!.cost).toMatchObject({ costUsd: null, inputTokens: 100 });
    expect(s.turn('t4')!.cost).toBeNull();
    const now = Date.now();
    const [from, to] = [now - 60_000, now + 60_000];
    expect(s.spend.sum(from, to)).toEqual({
      usd: 0.75,
      turns: 3,
      turnsWithoutCost: 1,
      inputTokens: 120,
      outputTokens: 60,
      cacheReadTokens: 1,
      cacheCreationTokens: 2,
    });
    expect(s.spend.sum(from, to, { project: 'p2' })).toMatchObject({ usd: 0, turns: 1, turnsWithoutCost: 1 });
    expect(s.spend.sum(from, to, { conversationId: 'web:a' })).toMatchObject({ usd: 0.75, turns: 2 });
    expect([...s.spend.byProject(from, to).entries()].map(([p, x]) => [p, x.usd])).toEqual([
      ['p1', 0.75],
      ['p2', 0],
    ]);
    expect(s.spend.byConversation(from, to, 10).map((c) => c.conversationId)).toEqual(['web:a', 'web:b']);
    // Another day counts nothing.
    expect(s.spend.sum(now + 60_000, now + 120_000).turns).toBe(0);
    s.spend.setBudgetDay('p1', '2026-01-02', 3, 'web:owner');
    s.spend.setBudgetDay('p1', '2026-01-02', 4, 'telegram:1');
    expect(s.spend.budgetDay('p1', '2026-01-02')).toMatchObject({ dailyUsd: 4, setBy: 'telegram:1' });
    expect(s.spend.budgetDay('p1', '2026-01-03')).toBeUndefined();
  });
});
