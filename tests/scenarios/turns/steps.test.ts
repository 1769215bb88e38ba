/**
 * A turn's steps, end to end through the HTTP API on the real CLI and the mock Messages API: the
 * same steps arrive live as `step` events, are stored, and come back from the history route —
 * after a restart of the gateway too — with the same turn times.
 */
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionStep, Step, ToolStep, TurnView } from '../../../src/gateway/steps/types.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, type EventWatch, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
const running: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  mock = await startMockApi();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.stop()));
});
afterAll(async () => {
  await mock.close();
});

async function gateway(agent: Record<string, unknown> = {}, home?: string) {
  const gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome'), agent) }, { home });
  running.push(gw);
  return gw;
}

/** The latest version of each step seen on the stream, in step order. */
function liveSteps(w: EventWatch, turnId: string): Step[] {
  const latest = new Map<number, Step>();
  for (const e of w.of('step', (d) => (d.step as Step).turnId === turnId))
    latest.set((e.data.step as Step).index, e.data.step as Step);
  return [...latest.entries()].sort((a, b) => a[0] - b[0]).map(([, s]) => s);
}

async function turns(
  gw: Awaited<ReturnType<typeof gateway>>,
  conv: string,
  query = '',
): Promise<{ turns: TurnView[]; more: boolean }> {
  const r = await gw.api('GET', `/api/conversations/${conv}/turns${query}`);
  expect(r.status).toBe(200);
  return (await r.json()) as { turns: TurnView[]; more: boolean };
}

describe('turn steps (real CLI)', () => {
  it(
    'shows a tool call while it runs and its output after, and the history holds the same steps after a ' + 'restart',
    async () => {
      const home = tempDir('rhome');
      const gw = await gateway({}, home);
      const w = gw.watch('st1');
      await w.ready;
      const a = await gw.post('st1', 'work [[bash:echo start; sleep 2]] tag:t1');
      const started = await w.wait('turn', (d) => (d.turn as TurnView).inputIds.includes(a.messageId));
      const turnId = (started.data.turn as TurnView).id;
      expect((started.data.turn as TurnView).status).toBe('running');
      const runningTool = await w.wait('step', (d) => (d.step as Step).kind === 'tool');
      expect(runningTool.data.step).toMatchObject({
        kind: 'tool',
        name: 'Bash',
        summary: 'echo start; sleep 2',
        status: 'running',
        turnId,
      });
      // While the tool runs, the running turn is there for live surfaces, and in the history.
      expect(gw.gw.services.steps.running('web:st1')?.steps.map((s) => s.kind)).toEqual(['tool']);
      expect((await turns(gw, 'st1')).turns.at(-1)).toMatchObject({ id: turnId, status: 'running' });

      await w.waitReply(a.messageId);
      const ended = await w.wait(
        'turn',
        (d) => (d.turn as TurnView).id === turnId && (d.turn as TurnView).status !== 'running',
      );
      const live = liveSteps(w, turnId);
      expect(live.map((s) => s.kind)).toEqual(['tool', 'text']);
      const tool = live[0] as ToolStep;
      expect(tool).toMatchObject({ status: 'ok', output: 'start' });
      expect(tool.endedAt! - tool.at).toBeGreaterThanOrEqual(1500);
      expect(live[1]).toMatchObject({ kind: 'text', text: 'done ok', final: true });

      const stored = (await turns(gw, 'st1')).turns;
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({ id: turnId, status: 'answered', inputIds: [a.messageId], stepCount: 2 });
      expect(stored[0]!.steps).toEqual(live);
      // The live turn's times are the stored ones: a reload shows the same duration.
      const { startedAt, endedAt } = ended.data.turn as TurnView;
      expect({ startedAt: stored[0]!.startedAt, endedAt: stored[0]!.endedAt }).toEqual({ startedAt, endedAt });
      expect((started.data.turn as TurnView).startedAt).toBe(startedAt);

      // Another device after a restart: the same timeline from the store.
      await running.pop()!.stop();
      const again = await gateway({}, home);
      const after = (await turns(again, 'st1')).turns;
      expect(after[0]!.steps).toEqual(live);
      const messages = (await (await again.api('GET', '/api/conversations/st1/messages')).json()) as {
        messages: Array<{ id: string; turnId: string }>;
      };
      expect(messages.messages.find((m) => m.id === a.messageId)?.turnId).toBe(turnId);
    },
  );

  it('puts a message steered mid-tool inside the turn, where the agent took it in', async () => {
    const gw = await gateway();
    const w = gw.watch('st2');
    await w.ready;
    const a = await gw.post('st2', 'work [[bash:sleep 2]] tag:s1');
    await w.wait('step', (d) => (d.step as Step).kind === 'tool');
    const s = await gw.post('st2', 'also this tag:s2');
    expect(s.disposition).toBe('steered');
    await w.waitReply(s.messageId);
    const turnId = gw.gw.services.store.message(a.messageId)!.turnId!;
    await waitUntil(() => liveSteps(w, turnId).some((x) => x.kind === 'text'));
    const steps = (await turns(gw, 'st2')).turns[0]!.steps;
    expect(steps.map((x) => x.kind)).toEqual(['tool', 'steer', 'text']);
    expect(steps[1]).toMatchObject({ kind: 'steer', messageId: s.messageId, text: 'also this tag:s2' });
    expect((await turns(gw, 'st2')).turns[0]!.inputIds).toEqual([a.messageId, s.messageId]);
  });

  it('records who answered a permission request, and withdraws one the turn no longer waits for (/stop)', async () => {
    const gw = await gateway({ permissionMode: 'relay' });
    const w = gw.watch('st3');
    await w.ready;
    const marker = `${tempDir('perm')}/made`;
    const a = await gw.post('st3', `[[bash:touch ${marker}]] tag:p1`);
    const p = await w.wait('step', (d) => (d.step as Step).kind === 'permission');
    expect(p.data.step).toMatchObject({
      kind: 'permission',
      toolName: 'Bash',
      summary: `touch ${marker}`,
      status: 'open',
    });
    const requestId = (p.data.step as PermissionStep).requestId;
    expect((await gw.api('POST', `/api/conversations/st3/permissions/${requestId}`, { allow: true })).status).toBe(200);
    await w.waitReply(a.messageId);
    expect(fs.existsSync(marker)).toBe(true);
    const answered = (await turns(gw, 'st3')).turns[0]!.steps.find((x) => x.kind === 'permission') as PermissionStep;
    expect(answered).toMatchObject({
      status: 'answered',
      answer: { optionId: 'allow', label: 'Allow', by: 'web:owner' },
    });
    expect(
      w.of('permission', (d) => d.requestId === requestId && d.resolved === 'allow' && d.by === 'web:owner'),
    ).toHaveLength(1);

    // A request left open when /stop ends the turn is withdrawn; a late answer is refused and never announced.
    const never = `${tempDir('perm')}/never`;
    const b = await gw.post('st3', `[[bash:touch ${never}]] tag:p2`);
    const p2 = await w.wait(
      'step',
      (d) => (d.step as Step).kind === 'permission' && (d.step as PermissionStep).requestId !== requestId,
    );
    const rid2 = (p2.data.step as PermissionStep).requestId;
    const stop = await gw.post('st3', '/stop');
    await w.waitReply(stop.messageId);
    await w.wait('permission', (d) => d.requestId === rid2 && d.withdrawn === true);
    expect((await gw.api('POST', `/api/conversations/st3/permissions/${rid2}`, { allow: true })).status).toBe(404);
    const sentinel = await gw.post('st3', 'sentinel tag:p3');
    await w.waitReply(sentinel.messageId);
    expect(w.of('permission', (d) => d.requestId === rid2 && d.resolved !== undefined)).toHaveLength(0);
    expect(fs.existsSync(never)).toBe(false);
    const stopped = (await turns(gw, 'st3')).turns.find((t) => t.inputIds.includes(b.messageId))!;
    expect(stopped.status).toBe('stopped');
    expect(stopped.steps.find((x) => x.kind === 'permission')).toMatchObject({ requestId: rid2, status: 'withdrawn' });
  });

  it('keeps text streamed before /stop, and marks a tool cut off by it', async () => {
    const gw = await gateway();
    const w = gw.watch('st4');
    await w.ready;
    const a = await gw.post('st4', 'talk [[slow:6000]] tag:x1');
    await waitUntil(() => w.of('text').length >= 3, 20_000);
    const stop = await gw.post('st4', '/stop');
    await w.waitReply(stop.messageId);
    await waitUntil(async () => (await turns(gw, 'st4')).turns[0]?.status === 'stopped', 10_000);
    const t = (await turns(gw, 'st4')).turns[0]!;
    expect(t.inputIds).toEqual([a.messageId]);
    const text = t.steps.find((x) => x.kind === 'text');
    expect(text).toMatchObject({ kind: 'text' });
    expect((text as { text: string }).text).toMatch(/^ok tag:x1 streaming/);
    expect((text as { final?: boolean }).final).toBeUndefined();

    const b = await gw.post('st4', 'work [[bash:echo cut; sleep 30]] tag:x2');
    await w.wait('step', (d) => (d.step as Step).kind === 'tool' && (d.step as Step).turnId !== t.id);
    const stop2 = await gw.post('st4', '/stop');
    await w.waitReply(stop2.messageId);
    await waitUntil(
      async () => (await turns(gw, 'st4')).turns.find((x) => x.inputIds.includes(b.messageId))?.status === 'stopped',
      10_000,
    );
    const cut = (await turns(gw, 'st4')).turns.find((x) => x.inputIds.includes(b.messageId))!;
    expect(cut.steps.find((x) => x.kind === 'tool')).toMatchObject({ status: 'error', summary: 'echo cut; sleep 30' });
  });

  it('pages back through a long history, and refuses a bad page query with the reason', async () => {
    const gw = await gateway();
    const w = gw.watch('st5');
    await w.ready;
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const m = await gw.post('st5', `m${n} tag:h${n}`);
      await w.waitReply(m.messageId);
      ids.push(m.messageId);
    }
    const last2 = await turns(gw, 'st5', '?limit=2');
    expect(last2.more).toBe(true);
    expect(last2.turns.map((t) => t.inputIds[0])).toEqual(ids.slice(1));
    const older = await turns(gw, 'st5', `?limit=2&before=${last2.turns[0]!.startedAt}`);
    expect(older).toMatchObject({ more: false });
    expect(older.turns.map((t) => t.inputIds[0])).toEqual(ids.slice(0, 1));
    const bad = await gw.api('GET', '/api/conversations/st5/turns?limit=abc');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(
      /"limit" must be a whole number from 1 to 200/,
    );
  });
});
