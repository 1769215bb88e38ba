/**
 * End to end through the HTTP API, on the real CLI and the mock Messages API: steering and the
 * queue modes.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNS_NEXT } from '../../../src/gateway/lane/steer-landing.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { fakeSessionFactory } from '../../support/fake-agent.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;

beforeAll(async () => {
  mock = await startMockApi();
  gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) });
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

describe('steering and queue modes (real CLI)', () => {
  it('steers a message sent during a Bash sleep into the same turn, with one reply', async () => {
    const w = gw.watch('steer1');
    await w.ready;
    const a = await gw.post('steer1', 'work [[bash:sleep 3]] tag:st1');
    expect(a.disposition).toBe('turn');
    await w.wait('status', (d) => d.state === 'tool');
    const s = await gw.post('steer1', 'and also this tag:st2');
    expect(s.disposition).toBe('steered');
    await w.waitReply(s.messageId);
    // A later message's reply comes after any second reply to the turn (the lane runs in order).
    const sentinel = await gw.post('steer1', 'sentinel tag:st3');
    await w.waitReply(sentinel.messageId);
    const replies = w.of('reply', (d) => d.kind === 'reply' && String(d.messageIds) !== sentinel.messageId);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.data.messageIds).toEqual([a.messageId, s.messageId]);
    expect(replies[0]!.data.text).toBe('done ok tag:st2');
    expect(w.of('ack', (d) => d.messageId === s.messageId).map((e) => e.data.kind)).toEqual(['received', 'steered']);
    // The mock saw the steered text, wrapped, in the same turn: the request right after the tool result.
    const afterTool = mock.mainRequests().filter((q) => q.afterTool && q.lastUserText.includes('tag:st2'));
    expect(afterTool).toHaveLength(1);
    expect(afterTool[0]!.lastUserText).toMatch(
      new RegExp(
        String.raw`<<<EXTERNAL_USER_MESSAGE id=\w+ from="web:owner \(web\)">>>\nand also this tag:st2\n` +
          String.raw`<<<END_EXTERNAL_USER_MESSAGE id=\w+>>>`,
      ),
    );
    const history = (await (await gw.api('GET', '/api/conversations/steer1/messages')).json()) as any;
    expect(history.messages.map((m: { state: string }) => m.state)).toEqual(['answered', 'steered', 'answered']);
  });

  it(
    'a message written while the model streams plain text runs as the next turn: the ack and the history ' + 'say so',
    async () => {
      const w = gw.watch('rat1');
      await w.ready;
      const a = await gw.post('rat1', 'talk [[slow:3000]] tag:rat1');
      await w.wait('text', (d) => d.messageId === a.messageId);
      const b = await gw.post('rat1', 'and this tag:rat2');
      expect(b.disposition).toBe('steered');
      const rb = await w.waitReply(b.messageId, 'reply');
      expect(rb.data.messageIds).toEqual([b.messageId]);
      expect(rb.data.text).toBe('ok tag:rat2');
      const acks = w.of('ack', (d) => d.messageId === b.messageId);
      // Handed over, then at once "runs next" (no tool boundary is coming while the model writes), then run.
      expect(acks.map((e) => e.data.kind)).toEqual(['received', 'steered', 'queued', 'queued']);
      expect(acks[2]!.data.note).toBe(RUNS_NEXT);
      expect(acks[3]!.data.note).toBe('ran as the next turn');
      const history = (await (await gw.api('GET', '/api/conversations/rat1/messages')).json()) as any;
      const [ma, mb] = history.messages as Array<{
        id: string;
        state: string;
        reason: string | null;
        turnId: string | null;
      }>;
      expect(ma).toMatchObject({ id: a.messageId, state: 'answered' });
      expect(mb).toMatchObject({
        id: b.messageId,
        state: 'answered',
        reason: 'ran as the next turn (sent while the agent was writing its reply)',
      });
      expect(mb!.turnId).toBeTruthy();
      expect(mb!.turnId).not.toBe(ma!.turnId);
    },
  );

  it('followup mode: two messages give two replies, in order', async () => {
    const w = gw.watch('follow1');
    await w.ready;
    expect((await gw.post('follow1', '/queue followup')).disposition).toBe('command');
    const a = await gw.post('follow1', 'first [[bash:sleep 2]] tag:f1');
    await w.wait('status', (d) => d.state === 'tool');
    const b = await gw.post('follow1', 'second tag:f2');
    expect(b.disposition).toBe('queued');
    await w.waitReply(b.messageId);
    const replies = w.of('reply', (d) => d.kind === 'reply');
    expect(replies.map((r) => r.data.messageIds)).toEqual([[a.messageId], [b.messageId]]);
    expect(replies.map((r) => r.data.text)).toEqual(['done ok', 'ok tag:f2']);
    expect(w.of('ack', (d) => d.messageId === b.messageId).map((e) => e.data.kind)).toEqual(['received', 'queued']);
  });

  it('collect mode: three quick messages give one merged turn', async () => {
    const w = gw.watch('collect1');
    await w.ready;
    await gw.post('collect1', '/queue collect');
    const ids = [];
    for (const t of ['one tag:c1', 'two tag:c2', 'three tag:c3']) ids.push(await gw.post('collect1', t));
    expect(ids.map((i) => i.disposition)).toEqual(['queued', 'merged', 'merged']);
    await w.wait('reply', (d) => d.kind === 'reply');
    // A later message's reply comes after any second turn of the batch (the lane runs in order).
    const sentinel = await gw.post('collect1', 'sentinel tag:c4');
    await w.waitReply(sentinel.messageId);
    const replies = w.of('reply', (d) => d.kind === 'reply' && String(d.messageIds) !== sentinel.messageId);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.data.messageIds).toEqual(ids.map((i) => i.messageId));
    expect(replies[0]!.data.text).toBe('ok tag:c1 tag:c2 tag:c3');
    expect(mock.mainRequests().filter((q) => /tag:c[123]\b/.test(q.lastUserText))).toHaveLength(1);
  });

  it(
    'refuses a message with a NUL at the door, with a notice, and the messages collected around it are ' + 'answered',
    async () => {
      const w = gw.watch('nul1');
      await w.ready;
      await gw.post('nul1', '/queue collect');
      const accept = (id: string, text: string) =>
        gw.gw.services.intake.accept({
          channel: 'web',
          platformMessageId: id,
          conversationKey: 'nul1',
          sender: { id: 'owner', name: 'web' },
          chatType: 'direct',
          text,
          sentAt: Date.now(),
        });
      const a = await accept('nul-a', 'one tag:n1');
      const bad = await accept('nul-b', 'two\u0000 tag:n2');
      const c = await accept('nul-c', 'three tag:n3');
      expect(bad).toMatchObject({ disposition: 'refused', reason: 'nul-character' });
      expect((await w.waitReply(bad.messageId, 'notice')).data.text).toMatch(/contains a NUL character/);
      const r = await w.waitReply(a.messageId, 'reply');
      expect(r.data.messageIds).toEqual([a.messageId, c.messageId]);
      expect(r.data.text).toBe('ok tag:n1 tag:n3');
      expect(gw.gw.services.store.message(bad.messageId)!.state).toBe('refused');
    },
  );

  it('interrupt mode: a new message stops the running turn, then runs', async () => {
    const w = gw.watch('int1');
    await w.ready;
    await gw.post('int1', '/queue interrupt');
    const a = await gw.post('int1', 'long [[bash:echo start; sleep 30]] tag:i1');
    await w.wait('status', (d) => d.state === 'tool');
    const b = await gw.post('int1', 'instead tag:i2');
    expect(b.disposition).toBe('queued');
    await w.waitReply(b.messageId, undefined, 15_000);
    expect(w.of('ack', (d) => d.messageId === a.messageId && d.kind === 'stopped')).toHaveLength(1);
    expect(w.repliesFor(a.messageId)).toHaveLength(0);
  });

  it('a full queue merges later messages into one summary turn, never dropping them', async () => {
    const small = await startInProcess({
      agent: agentConfig(mock.url, tempDir('chome')),
      steering: { mode: 'followup', queueCap: 2 },
    });
    try {
      const w = small.watch('cap');
      await w.ready;
      await small.post('cap', 'busy [[bash:sleep 2]] tag:cap0');
      await w.wait('status', (d) => d.state === 'tool');
      const sent: Array<{ messageId: string; disposition: string }> = [];
      for (const t of ['tag:cap1', 'tag:cap2', 'tag:cap3', 'tag:cap4']) sent.push(await small.post('cap', `msg ${t}`));
      expect(sent.map((s) => s.disposition)).toEqual(['queued', 'queued', 'merged', 'merged']);
      expect(w.of('ack', (d) => d.messageId === sent[2]!.messageId && d.kind === 'queued')[0]!.data.note).toMatch(
        /the queue is full \(2\)/,
      );
      await w.waitReply(sent[3]!.messageId, undefined, 30_000);
      const replies = w.of('reply', (d) => d.kind === 'reply').map((e) => e.data.messageIds);
      expect(replies.slice(1)).toEqual([
        [sent[0]!.messageId],
        [sent[1]!.messageId],
        [sent[2]!.messageId, sent[3]!.messageId],
      ]);
      const summary = mock.mainRequests().find((q) => q.lastUserText.includes('tag:cap3'))!;
      expect(summary.lastUserText).toContain('[2 messages arrived while the queue was full; they are merged here]');
      expect(summary.lastUserText).toContain('tag:cap4');
      const states = sent.map((s) => small.gw.services.store.message(s.messageId)!.state);
      expect(states).toEqual(['answered', 'answered', 'answered', 'merged']);
    } finally {
      await small.stop();
    }
  });
});

describe('every turn in a stream-json process, beyond the warm cap (real CLI)', () => {
  it(
    'with maxLive 1 and three conversations at once: each is steered mid-tool and relays a permission ' +
      'request; one process stays warm',
    async () => {
      const g = await startInProcess({
        agent: agentConfig(mock.url, tempDir('chome'), { permissionMode: 'relay', allowedTools: ['Bash(sleep *)'] }),
        steering: { maxLive: 1 },
      });
      try {
        const convs = ['cap-a', 'cap-b', 'cap-c'];
        const ws = convs.map((c) => g.watch(c));
        await Promise.all(ws.map((w) => w.ready));
        const firsts = await Promise.all(convs.map((c, i) => g.post(c, `work [[bash:sleep 3]] tag:cap${i}`)));
        await Promise.all(ws.map((w) => w.wait('status', (d) => d.state === 'tool', 60_000)));
        const steers = await Promise.all(convs.map((c, i) => g.post(c, `and this tag:capS${i}`)));
        expect(steers.map((s) => s.disposition)).toEqual(['steered', 'steered', 'steered']);
        const replies = await Promise.all(ws.map((w, i) => w.waitReply(steers[i]!.messageId, 'reply', 60_000)));
        for (const [i, r] of replies.entries())
          expect(r.data.messageIds).toEqual([firsts[i]!.messageId, steers[i]!.messageId]);
        // Between turns only one process stays warm; the others exited.
        const registry = g.gw.services.registry;
        await waitUntil(() => registry.sessions().filter((s) => s.pid() !== undefined).length === 1, 15_000);
        expect(registry.idleWarm()).toHaveLength(1);

        // A tool that needs approval is asked about in every conversation, warm or not: none is denied unasked.
        const markers = convs.map((c) => `${tempDir('cap')}/made-by-${c}`);
        const asks = await Promise.all(convs.map((c, i) => g.post(c, `[[bash:touch ${markers[i]}]] tag:capP${i}`)));
        const perms = await Promise.all(ws.map((w) => w.wait('permission', (d) => !d.resolved, 60_000)));
        for (const [i, p] of perms.entries()) {
          expect((p.data.input as { command: string }).command).toBe(`touch ${markers[i]}`);
          expect(
            (await g.api('POST', `/api/conversations/${convs[i]}/permissions/${p.data.requestId}`, { allow: true }))
              .status,
          ).toBe(200);
        }
        await Promise.all(ws.map((w, i) => w.waitReply(asks[i]!.messageId, 'reply', 60_000)));
        for (const m of markers) expect(fs.existsSync(m)).toBe(true);
        const status = (await (await g.api('GET', '/api/status')).json()) as any;
        expect(status.steering).toMatchObject({ on: true, maxLive: 1, maxLiveWhy: 'steering.maxLive in the config' });
      } finally {
        await g.stop();
      }
    },
  );
});

describe('a backend that cannot take a message mid-turn', () => {
  it('tells the person once, when a message first waits, what that costs; it is answered in order', async () => {
    const g = await startInProcess(
      { agent: { cwd: tempDir('fcwd') } },
      { sessionFactory: fakeSessionFactory({ turnMs: 400, steer: 'none' }) },
    );
    try {
      const w = g.watch('nosteer');
      await w.ready;
      const a = await g.post('nosteer', 'first');
      const b = await g.post('nosteer', 'second');
      expect([a.disposition, b.disposition]).toEqual(['turn', 'queued']);
      await w.waitReply(b.messageId, 'reply');
      const c = await g.post('nosteer', 'third');
      await w.waitReply(c.messageId, 'reply');
      const told = w.of(
        'reply',
        (d) => d.kind === 'notice' && /cannot take a message while it works/.test(String(d.text)),
      );
      expect(told).toHaveLength(1);
      // Said of the message that waited, not at the first turn (nothing waited then).
      expect(told[0]!.data.messageIds).toEqual([b.messageId]);
    } finally {
      await g.stop();
    }
  });
});
