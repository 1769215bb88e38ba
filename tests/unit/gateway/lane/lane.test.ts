/**
 * The lane (src/gateway/lane/) with the scripted in-process agent and a real store: each queue mode,
 * the overflow, withdrawing, a stop, a hold and a restart's recovery, asserted from what the agent
 * was handed (each input once) and from the store (each message one outcome).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RudderError } from '../../../../src/errors.js';
import { waitUntil } from '../../../support/claude-rig.js';
import { type LaneRig, laneRig } from '../../../support/lane-rig.js';

let rig: LaneRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const times = (r: LaneRig, id: string) => r.inputs.filter((i) => i.id === id).length;

describe('a lane', () => {
  it('steer: a message sent mid-turn by the same sender goes into the running turn, answered by it', async () => {
    const r = (rig = await laneRig({}, { turnMs: 300 }));
    const first = await r.send('s', 'first');
    const second = await r.send('s', 'second');
    expect([first.disposition, second.disposition]).toEqual(['turn', 'steered']);
    await r.until(second.messageId, 'steered');
    expect(r.row(first.messageId).state).toBe('answered');
    expect(r.inputs).toEqual([
      { id: first.messageId, how: 'turn' },
      { id: second.messageId, how: 'steer' },
    ]);
  });

  it('followup: each message waits for its own turn, in order, each handed over once', async () => {
    const r = (rig = await laneRig({ steering: { mode: 'followup' } }, { turnMs: 100 }));
    const sent = [await r.send('f', 'one'), await r.send('f', 'two'), await r.send('f', 'three')];
    expect(sent.map((s) => s.disposition)).toEqual(['turn', 'queued', 'queued']);
    await r.until(sent[2]!.messageId, 'answered');
    expect(r.inputs.map((i) => i.id)).toEqual(sent.map((s) => s.messageId));
    expect(sent.map((s) => r.row(s.messageId).state)).toEqual(['answered', 'answered', 'answered']);
  });

  it('collect: messages inside the quiet window run as one turn; the first is answered, the rest merged', async () => {
    const r = (rig = await laneRig({ steering: { mode: 'collect', collectWindowMs: 150 } }, {}));
    const a = await r.send('c', 'alpha');
    const b = await r.send('c', 'beta');
    expect([a.disposition, b.disposition]).toEqual(['queued', 'merged']);
    await r.until(b.messageId, 'merged');
    expect(r.row(a.messageId).state).toBe('answered');
    expect(r.row(a.messageId).turnId).toBe(r.row(b.messageId).turnId);
    expect(r.inputs.map((i) => i.how)).toEqual(['turn', 'turn']);
  });

  it('past the queue cap, later messages are merged into one overflow turn that says so', async () => {
    const seen: string[][] = [];
    const r = (rig = await laneRig(
      { steering: { mode: 'followup', queueCap: 1 } },
      { turnMs: 150, reply: (texts) => (seen.push(texts), 'ok') },
    ));
    const sent = [await r.send('o', 'run'), await r.send('o', 'wait'), await r.send('o', 'x'), await r.send('o', 'y')];
    expect(sent.map((s) => s.disposition)).toEqual(['turn', 'queued', 'merged', 'merged']);
    await r.until(sent[3]!.messageId, 'merged');
    expect(seen).toHaveLength(3);
    expect(seen[2]![0]).toMatch(/^\[2 messages arrived while the queue was full; they are merged here\]/);
    expect(seen[2]).toHaveLength(2);
  });

  it('a withdrawn message never reaches the agent and ends withdrawn', async () => {
    const r = (rig = await laneRig({ steering: { mode: 'followup' } }, { turnMs: 200 }));
    const first = await r.send('w', 'first');
    const second = await r.send('w', 'second');
    const third = await r.send('w', 'third');
    const change = r.s.api.withdraw('w', second.messageId);
    expect(change.ok).toBe(true);
    await r.until(third.messageId, 'answered');
    expect(r.row(second.messageId).state).toBe('withdrawn');
    expect(times(r, second.messageId)).toBe(0);
    expect(times(r, first.messageId) + times(r, third.messageId)).toBe(2);
  });

  it('a stop interrupts the running turn and ends what waits; the session survives for the next message', async () => {
    const r = (rig = await laneRig({ steering: { mode: 'followup' } }, { turnMs: 5_000 }));
    const running = await r.send('st', 'long');
    const waiting = await r.send('st', 'later');
    const stopped = await r.s.stopper.stop('web:st', Date.now());
    expect(stopped.interrupted).toBe(true);
    expect(stopped.dropped.map((m) => m.id)).toEqual([waiting.messageId]);
    await r.until(running.messageId, 'stopped');
    expect(r.row(waiting.messageId).state).toBe('stopped');
    const session = r.agents.get('web:st');
    expect(session?.state()).toBe('idle');
    // Sent after the stop, it runs in the same session.
    const next = await r.send('st', 'again');
    expect(next.disposition).toBe('turn');
    expect(r.agents.get('web:st')).toBe(session);
    expect(times(r, waiting.messageId)).toBe(0);
  });

  it('a rate limit holds the inputs (held_for), and /retry runs them again once', async () => {
    let limited = true;
    const r = (rig = await laneRig(
      {},
      {
        fail: () =>
          limited ? new RudderError('AGENT_RATE_LIMITED', undefined, { resetsAt: Date.now() + 60_000 }) : undefined,
      },
    ));
    const m = await r.send('rl', 'hello');
    await r.until(m.messageId, 'deferred');
    expect(r.row(m.messageId).heldFor).toBe('rate-limit');
    // A message sent while held waits too, and says why.
    const later = await r.send('rl', 'meanwhile');
    expect(later.disposition).toBe('queued');
    expect(r.row(later.messageId)).toMatchObject({ state: 'deferred', heldFor: 'rate-limit' });
    limited = false;
    expect(r.s.conversations.lane('web:rl').resume('test')).toBe(2);
    await r.until(later.messageId, 'answered');
    expect(r.row(m.messageId).state).toBe('answered');
    expect(times(r, m.messageId)).toBe(2);
    expect(times(r, later.messageId)).toBe(1);
  });

  it('a crash runs the turn again once, then fails it with a notice', async () => {
    const r = (rig = await laneRig({}, { fail: () => new RudderError('AGENT_CRASHED', 'test crash') }));
    const m = await r.send('cr', 'boom');
    await r.until(m.messageId, 'failed');
    expect(times(r, m.messageId)).toBe(2);
    expect(r.row(m.messageId).reason).toMatch(/^AGENT_CRASHED/);
    const notices = r.s.store.recentOutbox('web:cr').map((o) => o.text);
    expect(notices[0]).toMatch(/^↻ The agent stopped unexpectedly/);
    expect(notices[1]).toMatch(/^⚠️ The agent stopped in the middle of this turn twice/);
  });

  it("after a restart: a held message's hold is taken up again from held_for, a cut-off one runs again", async () => {
    const r = (rig = await laneRig({}, { turnMs: 50 }));
    const { row: held } = r.s.store.insertMessage({
      conversationId: 'web:rec',
      channel: 'web',
      platformMessageId: 'h',
      senderId: 'owner',
      text: 'held',
      state: 'accepted',
    });
    r.s.store.ensureConversation('web:rec', 'web', 'rec');
    r.s.store.inbox.hold([held.id], Date.now() + 60_000, 'rate-limit-estimated', 'rate limited (reset time estimated)');
    const lane = r.s.conversations.lane('web:rec');
    expect(lane.recover(r.row(held.id))).toBe('deferred');
    expect(lane.snapshot().held).toMatchObject({ why: 'rate-limit', estimated: true });
    const { row: cut } = r.s.store.insertMessage({
      conversationId: 'web:rec2',
      channel: 'web',
      platformMessageId: 'c',
      senderId: 'owner',
      text: 'cut off',
      state: 'accepted',
    });
    r.s.store.ensureConversation('web:rec2', 'web', 'rec2');
    r.s.store.inbox.run([cut.id], 'turn-before-restart');
    const lane2 = r.s.conversations.lane('web:rec2');
    expect(lane2.recover(r.row(cut.id))).toBe('rerun');
    lane2.pump();
    await r.until(cut.id, 'answered');
    expect(times(r, cut.id)).toBe(1);
    await waitUntil(() => r.s.store.recentOutbox('web:rec2').length === 2);
    expect(r.s.store.recentOutbox('web:rec2')[0]!.text).toMatch(/^↻ Rudder restarted/);
  });
});
