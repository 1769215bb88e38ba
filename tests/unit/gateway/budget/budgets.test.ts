/**
 * A project's daily budget (budget.dailyUsd) with the scripted in-process agent and a real store:
 * past it a new turn waits (deferred, held_for budget), never dropped or failed; /budget <usd> and
 * the day's reset put the held messages back in line, in order, each handed to the agent once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dayOf } from '../../../../src/gateway/budget/budgets.js';
import { waitUntil } from '../../../support/claude-rig.js';
import { type LaneRig, laneRig } from '../../../support/lane-rig.js';

let rig: LaneRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const times = (r: LaneRig, id: string) => r.inputs.filter((i) => i.id === id).length;
const notices = (r: LaneRig, conv: string) => r.s.store.recentOutbox(conv).map((o) => o.text);
/** Runs a command as the page's owner does, and returns its answer. */
async function command(r: LaneRig, conv: string, text: string): Promise<string> {
  const before = r.s.store.recentOutbox(conv).length;
  await r.send(conv.slice(4), text);
  await waitUntil(() => r.s.store.recentOutbox(conv).length > before);
  return r.s.store.recentOutbox(conv).at(-1)!.text;
}

describe('the daily budget', () => {
  it('past it new turns wait, told once; /budget <usd> runs them in order, each once', async () => {
    const r = (rig = await laneRig(
      { budget: { dailyUsd: 1 }, steering: { mode: 'followup' } },
      { cost: () => 0.6, turnMs: 20 },
    ));
    const a = await r.send('b', 'first');
    const b = await r.send('b', 'second');
    await r.until(b.messageId, 'answered');
    // 1.20 spent of 1.00: the next message waits instead of starting a turn.
    const c = await r.send('b', 'third');
    expect(c.disposition).toBe('queued');
    expect(r.row(c.messageId)).toMatchObject({ state: 'deferred', heldFor: 'budget' });
    const d = await r.send('b', 'fourth');
    expect(r.row(d.messageId)).toMatchObject({ state: 'deferred', heldFor: 'budget' });
    expect(times(r, c.messageId) + times(r, d.messageId)).toBe(0);
    await waitUntil(() => notices(r, 'web:b').some((t) => t.startsWith('⏸ Project default has spent $1.20')));
    expect(notices(r, 'web:b').filter((t) => t.startsWith('⏸')).length).toBe(1);
    expect(r.s.conversations.lane('web:b').snapshot().held?.why).toBe('budget');
    expect(r.s.status.report().queues[0]).toMatchObject({ conversationId: 'web:b', pausedFor: 'budget' });

    const shown = await command(r, 'web:b', '/budget');
    expect(shown).toContain('$1.20 of $1.00 a day');
    const raised = await command(r, 'web:b', '/budget 5');
    expect(raised).toMatch(/^Today's budget for project default is now \$5\.00 \(spent \$1\.20\)\. 2 held/);
    await r.until(d.messageId, 'answered');
    expect(r.row(c.messageId).state).toBe('answered');
    expect([a, b, c, d].map((m) => times(r, m.messageId))).toEqual([1, 1, 1, 1]);
    expect(r.inputs.map((i) => i.id)).toEqual([a, b, c, d].map((m) => m.messageId));
    expect(r.s.store.spend.budgetDay('default', dayOf(Date.now()).day)).toMatchObject({
      dailyUsd: 5,
      setBy: 'web:owner (web)',
    });
  });

  it("a message held by the budget runs once at the day's reset, with nothing raised", async () => {
    let offset = 0;
    const r = (rig = await laneRig({ budget: { dailyUsd: 0.5 } }, { cost: () => 1 }, { dayOffsetMs: () => offset }));
    const a = await r.send('m', 'spend it');
    await r.until(a.messageId, 'answered');
    // The local day now ends 1.5 s from here (the spending above stays in it).
    offset = dayOf(Date.now()).end - Date.now() - 1500;
    const b = await r.send('m', 'after midnight');
    expect(r.row(b.messageId)).toMatchObject({ state: 'deferred', heldFor: 'budget' });
    expect(times(r, b.messageId)).toBe(0);
    await r.until(b.messageId, 'answered');
    expect(times(r, b.messageId)).toBe(1);
  });

  it('a budget-held message found after a restart waits in line and asks the budget again', async () => {
    const r = (rig = await laneRig({ budget: { dailyUsd: 0 } }, {}));
    const m = await r.send('rb', 'held');
    expect(r.row(m.messageId)).toMatchObject({ state: 'deferred', heldFor: 'budget' });
    // A fresh lane, as after a restart: still spent, it is held again (never run, never failed).
    r.s.conversations.lane('web:rb').dispose();
    const lane = r.s.conversations.lane('web:rb');
    r.s.store.spend.setBudgetDay('default', dayOf(Date.now()).day, 0, null);
    expect(lane.recover(r.row(m.messageId))).toBe('queued');
    lane.pump();
    expect(r.row(m.messageId)).toMatchObject({ state: 'deferred', heldFor: 'budget' });
    expect(r.s.conversations.releaseBudget('default')).toBe(1);
    expect(r.row(m.messageId).state).toBe('deferred');
    r.s.store.spend.setBudgetDay('default', dayOf(Date.now()).day, 1, null);
    expect(r.s.conversations.releaseBudget('default')).toBe(1);
    await r.until(m.messageId, 'answered');
    expect(times(r, m.messageId)).toBe(1);
  });

  it('a turn whose backend reports no cost counts as a turn without a cost, never as $0 spent', async () => {
    const r = (rig = await laneRig({ budget: { dailyUsd: 0.01 } }, { cost: () => undefined }));
    const a = await r.send('n', 'codex-like');
    await r.until(a.messageId, 'answered');
    const t = r.s.store.turn(r.row(a.messageId).turnId!)!;
    expect(t.cost).toMatchObject({ costUsd: null });
    const day = dayOf(Date.now());
    expect(r.s.store.spend.sum(day.start, day.end)).toMatchObject({ usd: 0, turns: 1, turnsWithoutCost: 1 });
    const status = await command(r, 'web:n', '/status');
    expect(status).toContain('Cost today (here): $0.00 · 1 turn · 0 tokens · 1 without a reported cost');
  });
});
