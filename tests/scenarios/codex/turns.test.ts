/**
 * The codex backend end to end through the HTTP API: the real codex binary against the mock
 * Responses API, a real gateway. A round trip, messages sent mid-turn (while a command runs, while
 * the text streams), and a burst across conversations, each input reaching the model once, each
 * message one outcome, each reply once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPEN_STATES } from '../../../src/store/types.js';
import { recordingLogger } from '../../support/claude-rig.js';
import { codexAgent, copiesInLast, roundTripBudget, sentTimes } from '../../support/codex-gateway.js';
import { startInProcess } from '../../support/gateway-rig.js';
import { type MockResponses, startMockResponses } from '../../support/mock-responses.js';

let mock: MockResponses;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 60_000;

beforeAll(async () => {
  mock = await startMockResponses();
  gw = await startInProcess({ agent: codexAgent(mock.url) });
  budget = await roundTripBudget(gw, 'budget');
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

const WRAPPED = (from: string, text: string) =>
  new RegExp(
    String.raw`<<<EXTERNAL_USER_MESSAGE id=\w+ from="${from}">>>\n${text.replace(/[[\]]/g, '\\$&')}\n` +
      String.raw`<<<END_EXTERNAL_USER_MESSAGE id=\w+>>>`,
  );

async function history(conv: string) {
  const body = (await (await gw.api('GET', `/api/conversations/${conv}/messages`)).json()) as {
    messages: Array<{ id: string; state: string; reason: string | null; turnId: string | null }>;
  };
  return body.messages;
}

describe('codex through the gateway (real codex)', () => {
  it('round trip: one reply, the text wrapped, one request, the thread saved, the session shown', async () => {
    const w = gw.watch('rt');
    await w.ready;
    const m = await gw.post('rt', 'hello tag:rt1');
    expect(m.disposition).toBe('turn');
    const r = await w.waitReply(m.messageId, 'reply', budget);
    expect(r.data.text).toBe('ok tag:rt1');
    expect(w.of('ack', (d) => d.messageId === m.messageId).map((e) => e.data.kind)).toEqual(['received']);
    expect(w.of('text', (d) => d.messageId === m.messageId).length).toBeGreaterThan(0);
    const req = mock.requests.find((q) => q.userTexts.some((t) => t.includes('hello tag:rt1')))!;
    expect(req.lastUserText).toMatch(WRAPPED('web:owner \\(web\\)', 'hello tag:rt1'));
    expect(sentTimes(mock.requests, 'hello tag:rt1')).toBe(1);
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('answered');
    const conv = gw.gw.services.store.conversation('web:rt')!;
    expect(conv.sessionId).toBe(req.threadId);
    const status = (await (await gw.api('GET', '/api/status')).json()) as any;
    const session = status.sessions.find((s: { conversationId: string }) => s.conversationId === 'web:rt');
    expect(session).toMatchObject({ backend: 'codex', sessionId: req.threadId, state: 'idle' });
    expect(session.pid).toBeGreaterThan(0);
    // A later message's reply comes after any second reply to the first (the lane runs in order).
    const s = await gw.post('rt', 'sentinel tag:rt2');
    await w.waitReply(s.messageId, 'reply', budget);
    expect(w.repliesFor(m.messageId)).toHaveLength(1);
  });

  it('a message sent while a command runs reaches the model in the same turn, after the output, steered', async () => {
    const w = gw.watch('st');
    await w.ready;
    const a = await gw.post('st', 'work [[exec:sleep 3; echo slept]] tag:st1');
    await w.wait('status', (d) => d.state === 'tool', budget);
    const s = await gw.post('st', 'and also this tag:st2');
    expect(s.disposition).toBe('steered');
    const r = await w.waitReply(s.messageId, 'reply', budget);
    expect(r.data.messageIds).toEqual([a.messageId, s.messageId]);
    expect(r.data.text).toBe('done ok tag:st2');
    expect(w.of('ack', (d) => d.messageId === s.messageId).map((e) => e.data.kind)).toEqual(['received', 'steered']);
    // The request that carried the command's output carried the steer: the same turn, the same thread.
    const after = mock.requests.filter((q) => q.afterTool && q.userTexts.some((t) => t.includes('tag:st2')));
    expect(after).toHaveLength(1);
    expect(after[0]!.toolOutputs.join('\n')).toContain('slept');
    expect(after[0]!.lastUserText).toMatch(WRAPPED('web:owner \\(web\\)', 'and also this tag:st2'));
    expect(sentTimes(mock.requests, 'tag:st1')).toBe(1);
    expect(sentTimes(mock.requests, 'tag:st2')).toBe(1);
    const sentinel = await gw.post('st', 'sentinel tag:st3');
    await w.waitReply(sentinel.messageId, 'reply', budget);
    expect(w.of('reply', (d) => d.kind === 'reply').map((e) => e.data.messageIds)).toEqual([
      [a.messageId, s.messageId],
      [sentinel.messageId],
    ]);
    const rows = await history('st');
    expect(rows.map((m) => m.state)).toEqual(['answered', 'steered', 'answered']);
    expect(rows[1]!.turnId).toBe(rows[0]!.turnId);
    const steps = (await (await gw.api('GET', '/api/conversations/st/turns')).json()) as any;
    const turn = steps.turns.find((t: { id: string }) => t.id === rows[0]!.turnId);
    expect(turn.steps.map((x: { kind: string }) => x.kind)).toEqual(expect.arrayContaining(['tool', 'steer']));
  });

  it('a message sent while the text streams is steered into the same turn (codex samples again with it)', async () => {
    const w = gw.watch('tx');
    await w.ready;
    const a = await gw.post('tx', 'talk [[slow:3000]] tag:tx1');
    await w.wait('text', (d) => d.messageId === a.messageId, budget);
    const b = await gw.post('tx', 'and this tag:tx2');
    expect(b.disposition).toBe('steered');
    const r = await w.waitReply(b.messageId, 'reply', budget);
    expect(r.data.messageIds).toEqual([a.messageId, b.messageId]);
    expect(r.data.text).toContain('tag:tx2');
    expect(w.of('ack', (d) => d.messageId === b.messageId).map((e) => e.data.kind)).toEqual(['received', 'steered']);
    // The request codex dropped for the steer does not count: each input reached the model in one completed request.
    expect(sentTimes(mock.requests, 'tag:tx1')).toBe(1);
    expect(sentTimes(mock.requests, 'tag:tx2')).toBe(1);
    const sentinel = await gw.post('tx', 'sentinel tag:tx3');
    await w.waitReply(sentinel.messageId, 'reply', budget);
    expect(w.of('reply', (d) => d.kind === 'reply')).toHaveLength(2);
    expect((await history('tx')).map((m) => m.state)).toEqual(['answered', 'steered', 'answered']);
  });

  it('a burst across conversations: every message one outcome and one reply, each input once', async () => {
    // Half the conversations steer what comes while a turn runs (the default), half queue it.
    const convs = ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'];
    const ws = convs.map((c) => gw.watch(c));
    await Promise.all(ws.map((w) => w.ready));
    await Promise.all(convs.slice(3).map((c) => gw.post(c, '/queue followup')));
    const sent = await Promise.all(
      convs.flatMap((c) => [0, 1, 2].map((k) => gw.post(c, `burst ${c} tag:${c}m${k}`).then((m) => ({ c, k, m })))),
    );
    await Promise.all(sent.map(({ c, m }) => ws[convs.indexOf(c)]!.waitReply(m.messageId, 'reply', budget * 2)));
    // A later message's reply comes after any second reply to the burst (each lane runs in order).
    const sentinels = await Promise.all(convs.map((c) => gw.post(c, `sentinel tag:${c}z`)));
    await Promise.all(sentinels.map((m, i) => ws[i]!.waitReply(m.messageId, 'reply', budget)));
    for (const { c, k, m } of sent) {
      const w = ws[convs.indexOf(c)]!;
      expect(w.repliesFor(m.messageId)).toHaveLength(1);
      expect(w.repliesFor(m.messageId)[0]!.data.text).toContain(`tag:${c}m${k}`);
      expect(sentTimes(mock.requests, `tag:${c}m${k}`)).toBe(1);
      expect(copiesInLast(mock.requests, `tag:${c}m${k}`)).toBe(1);
      expect(['answered', 'steered', 'merged']).toContain(gw.gw.services.store.message(m.messageId)!.state);
    }
    for (const [i, c] of convs.entries()) {
      if (i < 3) continue;
      // Queued: a reply each, in the order sent.
      const mine = sent.filter((s) => s.c === c).map((s) => [s.m.messageId]);
      expect(ws[i]!.of('reply', (d) => d.kind === 'reply').map((e) => e.data.messageIds)).toEqual([
        ...mine,
        [sentinels[i]!.messageId],
      ]);
    }
    // One app-server hosts the live conversations' threads (the warm cap may have stopped some); a thread each.
    const status = (await (await gw.api('GET', '/api/status')).json()) as any;
    const ours = status.sessions.filter((s: { conversationId: string }) => convs.includes(s.conversationId.slice(4)));
    expect(ours.length).toBeGreaterThan(0);
    expect(new Set(ours.map((s: { pid: number }) => s.pid)).size).toBe(1);
    const threads = convs.map((c) => gw.gw.services.store.conversation(`web:${c}`)!.sessionId);
    expect(new Set(threads).size).toBe(convs.length);
    for (const st of OPEN_STATES) expect(gw.gw.services.store.countsByState()[st] ?? 0).toBe(0);
  });
});

/** Holds the event loop, as a loaded machine does: nothing the gateway reads meanwhile is seen until it ends. */
function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end);
}

describe('a message that reaches codex just after its turn ended (real codex)', () => {
  it('runs as the next turn and says so: the ack, the stored reason, its own reply, sent once', async () => {
    // Every write commits on its own, so the hand-off to codex happens inside accept(), before the loop reads codex.
    const rec = recordingLogger();
    const g = await startInProcess(
      { agent: codexAgent(mock.url), store: { groupCommit: false } },
      { logger: rec.logger },
    );
    try {
      const w = g.watch('late');
      await w.ready;
      let refused = 0;
      // The stall must outlast codex's own end of the turn: longer each try on a slow machine.
      for (const [i, stallMs] of [1000, 3000, 6000].entries()) {
        const tag = `tag:late${i}a`;
        const handed = new Promise<Awaited<ReturnType<typeof g.gw.services.intake.accept>>>((resolve) =>
          mock.onCompleted((q) => {
            if (!q.userTexts.some((t) => t.includes(tag))) return;
            mock.onCompleted(undefined);
            // Codex has the whole answer and ends its turn while the gateway, stalled, has not read that yet.
            stall(stallMs);
            resolve(
              g.gw.services.intake.accept({
                channel: 'web',
                platformMessageId: `late-${i}`,
                conversationKey: 'late',
                sender: { id: 'owner', name: 'web' },
                chatType: 'direct',
                text: `second tag:late${i}b`,
                sentAt: Date.now(),
              }),
            );
          }),
        );
        const before = rec.records.filter((r) => r.msg === 'turn/steer refused; it runs next').length;
        const a = await g.post('late', `first ${tag}`);
        const b = await handed;
        expect(b.disposition).toBe('steered');
        await w.waitReply(b.messageId, 'reply', budget);
        await w.waitReply(a.messageId, 'reply', budget);
        const acks = w.of('ack', (d) => d.messageId === b.messageId).map((e) => e.data);
        const row = g.gw.services.store.message(b.messageId)!;
        expect(sentTimes(mock.requests, `tag:late${i}a`)).toBe(1);
        expect(sentTimes(mock.requests, `tag:late${i}b`)).toBe(1);
        expect(copiesInLast(mock.requests, `tag:late${i}b`)).toBe(1);
        if (rec.records.filter((r) => r.msg === 'turn/steer refused; it runs next').length === before) {
          // Codex took it into the turn after all: steered, answered with the first.
          expect(acks.map((d) => d.kind)).toEqual(['received', 'steered']);
          expect(w.repliesFor(b.messageId)[0]!.data.messageIds).toEqual([a.messageId, b.messageId]);
          continue;
        }
        refused++;
        expect(acks.map((d) => d.kind)).toEqual(['received', 'steered', 'queued']);
        expect(acks[2]!.note).toBe('ran as the next turn');
        expect(row.state).toBe('answered');
        expect(row.reason).toBe('ran as the next turn (the turn had ended before Codex took it in)');
        expect(row.turnId).not.toBe(g.gw.services.store.message(a.messageId)!.turnId);
        expect(w.repliesFor(a.messageId).map((e) => e.data.messageIds)).toEqual([[a.messageId]]);
        expect(w.repliesFor(b.messageId).map((e) => e.data.messageIds)).toEqual([[b.messageId]]);
        expect(w.repliesFor(b.messageId)[0]!.data.text).toBe(`ok tag:late${i}b`);
        break;
      }
      expect(refused).toBe(1);
    } finally {
      await g.stop();
    }
  });
});
