/**
 * The web app's API on a real gateway (real CLI, mock Messages API): withdraw and edit a waiting
 * message, stop without a /stop message, titles, unread marks and archive, and history pages that
 * hold each message, turn and reply once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Step, TurnView } from '../../../src/gateway/steps/types.js';
import type { HistoryPage } from '../../../src/http/wire.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
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

async function gateway(extra: Record<string, unknown> = {}) {
  const gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')), ...extra });
  running.push(gw);
  return gw;
}
type Gw = Awaited<ReturnType<typeof gateway>>;

async function json<T = any>(gw: Gw, method: string, path: string, body?: unknown, status = 200): Promise<T> {
  const r = await gw.api(method, path, body);
  const j = (await r.json()) as T;
  expect([method, path, r.status]).toEqual([method, path, status]);
  return j;
}

const page = (gw: Gw, conv: string, q = '') => json<HistoryPage>(gw, 'GET', `/api/conversations/${conv}/messages${q}`);
const modelSaw = (tag: string) => mock.mainRequests().filter((r) => r.lastUserText.includes(tag));

describe('waiting messages: withdraw and edit', () => {
  it(
    'withdraws a queued message before it runs: it ends withdrawn, every page is told, and it never reaches ' +
      'the agent',
    async () => {
      const gw = await gateway({ steering: { mode: 'followup' } });
      const w = gw.watch('wd1');
      await w.ready;
      const a = await gw.post('wd1', 'first [[bash:sleep 3]] tag:wd-a');
      await w.wait('step', (d) => (d.step as Step).kind === 'tool');
      const b = await gw.post('wd1', 'take me back tag:wd-b');
      expect(b.disposition).toBe('queued');

      const gone = await json(gw, 'DELETE', `/api/conversations/wd1/messages/${b.messageId}`);
      expect(gone).toMatchObject({ messageId: b.messageId, state: 'withdrawn' });
      await w.wait('message', (d) => d.messageId === b.messageId && d.state === 'withdrawn');
      const again = await json(gw, 'DELETE', `/api/conversations/wd1/messages/${b.messageId}`, undefined, 409);
      expect(again.error).toMatchObject({
        code: 'MESSAGE_NOT_WAITING',
        message: expect.stringContaining('already withdrawn'),
      });
      const busy = await json(gw, 'DELETE', `/api/conversations/wd1/messages/${a.messageId}`, undefined, 409);
      expect(busy.error.message).toMatch(/already running/);

      await w.waitReply(a.messageId);
      const sentinel = await gw.post('wd1', 'after tag:wd-c');
      await w.waitReply(sentinel.messageId);
      expect(modelSaw('tag:wd-b')).toHaveLength(0);
      expect(modelSaw('tag:wd-c').length).toBeGreaterThan(0);
      expect(w.repliesFor(b.messageId)).toHaveLength(0);
      const history = await page(gw, 'wd1');
      expect(history.messages.map((m) => [m.id, m.state])).toEqual([
        [a.messageId, 'answered'],
        [b.messageId, 'withdrawn'],
        [sentinel.messageId, 'answered'],
      ]);
      expect((await json(gw, 'DELETE', '/api/conversations/wd1/messages/m_nope', undefined, 404)).error.code).toBe(
        'NOT_FOUND',
      );
    },
  );

  it('edits a queued message: the agent sees only the new text, answered in its place', async () => {
    const gw = await gateway({ steering: { mode: 'followup' } });
    const w = gw.watch('ed1');
    await w.ready;
    const a = await gw.post('ed1', 'first [[bash:sleep 3]] tag:ed-a');
    await w.wait('step', (d) => (d.step as Step).kind === 'tool');
    const b = await gw.post('ed1', 'old words tag:ed-old');
    const edited = await json(gw, 'PATCH', `/api/conversations/ed1/messages/${b.messageId}`, {
      text: 'new words tag:ed-new',
    });
    expect(edited).toMatchObject({ messageId: b.messageId, state: 'queued', text: 'new words tag:ed-new' });
    await w.wait('message', (d) => d.messageId === b.messageId && d.edited === true);
    const into = await json(gw, 'PATCH', `/api/conversations/ed1/messages/${b.messageId}`, { text: '/clear' }, 400);
    expect(into.error.message).toMatch(/cannot be edited into a command/);
    const reply = await w.waitReply(b.messageId, 'reply');
    expect(reply.data.text).toBe('ok tag:ed-new');
    expect(modelSaw('tag:ed-old')).toHaveLength(0);
    const late = await json(gw, 'PATCH', `/api/conversations/ed1/messages/${a.messageId}`, { text: 'too late' }, 409);
    expect(late.error.message).toMatch(/already answered/);
    expect((await page(gw, 'ed1')).messages.find((m) => m.id === b.messageId)?.text).toBe('new words tag:ed-new');
  });
});

describe('one text check for every way in', () => {
  it('refuses an edit holding a NUL character as a POST is refused; the waiting message keeps its text', async () => {
    const gw = await gateway({ steering: { mode: 'followup' } });
    const w = gw.watch('nul1');
    await w.ready;
    const a = await gw.post('nul1', 'first [[bash:sleep 3]] tag:nul-a');
    await w.wait('step', (d) => (d.step as Step).kind === 'tool');
    const b = await gw.post('nul1', 'kept words tag:nul-kept');
    expect(b.disposition).toBe('queued');
    const text = 'changed\u0000words tag:nul-new';
    const posted = await json(gw, 'POST', '/api/conversations/nul1/messages', { text }, 400);
    const edited = await json(gw, 'PATCH', `/api/conversations/nul1/messages/${b.messageId}`, { text }, 400);
    expect(edited.error).toEqual(posted.error);
    expect(edited.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/NUL character/) });
    // Nothing changed: the agent answers the words that were there, and never sees the refused ones.
    const reply = await w.waitReply(b.messageId, 'reply');
    expect(reply.data.text).toBe('ok tag:nul-kept');
    expect(modelSaw('tag:nul-new')).toHaveLength(0);
    await w.waitReply(a.messageId);
    expect((await page(gw, 'nul1')).messages.find((m) => m.id === b.messageId)?.text).toBe('kept words tag:nul-kept');
  });
});

describe('stop from a button', () => {
  it(
    'stops the running turn without a /stop message; the notice says what it stopped and answers that ' + 'turn',
    async () => {
      const gw = await gateway();
      const w = gw.watch('sp1');
      await w.ready;
      const a = await gw.post('sp1', 'long job [[bash:echo start; sleep 30]] tag:sp');
      await w.wait('step', (d) => (d.step as Step).kind === 'tool');
      const t0 = Date.now();
      const stop = await json(gw, 'POST', '/api/conversations/sp1/stop', {});
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(stop.stopped).toBe(true);
      expect(stop.notice).toBe(
        '⏹ Stopped the running turn (“long job [[bash:echo start; sleep 30]] tag:sp”, at Bash: echo start; ' +
          'sleep 30). The session is kept.',
      );
      const notice = await w.waitReply(a.messageId, 'notice');
      expect(notice.data.text).toBe(stop.notice);
      await w.wait(
        'turn',
        (d) => (d.turn as TurnView).inputIds.includes(a.messageId) && (d.turn as TurnView).status === 'stopped',
      );
      const history = await page(gw, 'sp1');
      expect(history.messages.map((m) => m.text)).toEqual(
        [a.messageId].map(() => 'long job [[bash:echo start; sleep 30]] tag:sp'),
      );
      expect(history.messages[0]!.acks.map((k) => k.kind)).toEqual(['received', 'stopped']);
      expect(history.replies.filter((r) => r.kind === 'notice').map((r) => r.messageIds)).toEqual([[a.messageId]]);
      expect((await json(gw, 'POST', '/api/conversations/sp1/stop', {})).notice).toMatch(/^⏹ Nothing was running/);
      // The session survives: the next message is answered.
      const next = await gw.post('sp1', 'still there tag:sp2');
      expect((await w.waitReply(next.messageId, 'reply')).data.text).toMatch(/ok tag:sp2$/);
    },
  );
});

describe('conversations: title, unread, archive', () => {
  it('names a conversation by its first message, marks replies unread until read, renames and archives', async () => {
    const gw = await gateway();
    const { id } = await json<{ id: string }>(gw, 'POST', '/api/conversations', {}, 201);
    const w = gw.watch(id);
    await w.ready;
    await gw.post(id, '/help');
    const m = await gw.post(id, 'Fix the flaky login test\nit fails on CI tag:ti');
    await w.waitReply(m.messageId, 'reply');
    const list = async (q = '') =>
      (await json<{ conversations: any[] }>(gw, 'GET', `/api/conversations${q}`)).conversations;
    let item = (await list()).find((c) => c.id === id);
    expect(item).toMatchObject({ title: 'Fix the flaky login test', unread: true, archived: false });
    expect(item.lastActivityAt).toBeGreaterThanOrEqual(item.createdAt);

    item = await json(gw, 'POST', `/api/conversations/${id}/read`, { eventId: item.lastEventId });
    expect(item.unread).toBe(false);
    // The read mark never moves back (another device reporting late).
    expect((await json(gw, 'POST', `/api/conversations/${id}/read`, { eventId: 1 })).unread).toBe(false);

    expect((await json(gw, 'PATCH', `/api/conversations/${id}`, { title: '  Login test  ' })).title).toBe('Login test');
    expect((await json(gw, 'PATCH', `/api/conversations/${id}`, { archived: true })).archived).toBe(true);
    expect((await list()).map((c) => c.id)).not.toContain(id);
    expect((await list('?archived=1')).map((c) => [c.id, c.title])).toEqual([[id, 'Login test']]);
    // Writing in it brings it back.
    const again = await gw.post(id, 'one more tag:ti2');
    await w.waitReply(again.messageId);
    expect((await list()).map((c) => c.id)).toContain(id);
    expect((await json(gw, 'GET', `/api/conversations/${id}`)).title).toBe('Login test');

    for (const [body, reason] of [
      [{ title: '' }, /"title" must be a non-empty string/],
      [{ title: 'x'.repeat(201) }, /longer than 200/],
      [{ archived: 'yes' }, /"archived" must be true or false/],
      [{ colour: 'red' }, /Unknown field\(s\): colour/],
    ] as const) {
      expect((await json(gw, 'PATCH', `/api/conversations/${id}`, body, 400)).error.message).toMatch(reason);
    }
    expect((await json(gw, 'POST', `/api/conversations/${id}/read`, { eventId: -1 }, 400)).error.message).toMatch(
      /"eventId"/,
    );
    expect((await json(gw, 'PATCH', '/api/conversations/none-such', { title: 'x' }, 404)).error.code).toBe('NOT_FOUND');
  });
});

describe('history pages', () => {
  it(
    'pages back through messages, turns and replies: each once, with acks and steps, as a reload shows ' + 'them',
    async () => {
      const gw = await gateway();
      const w = gw.watch('hp1');
      await w.ready;
      const sent: string[] = [];
      for (const n of [1, 2, 3]) {
        const m = await gw.post('hp1', `work ${n} [[bash:echo out${n}]] tag:hp${n}`);
        await w.waitReply(m.messageId);
        const help = await gw.post('hp1', '/help');
        await w.waitReply(help.messageId);
        sent.push(m.messageId, help.messageId);
      }
      const pages: HistoryPage[] = [await page(gw, 'hp1', '?limit=2')];
      expect(pages[0]!.lastEventId).toBeGreaterThan(0);
      while (pages.at(-1)!.more) pages.push(await page(gw, 'hp1', `?limit=2&before=${pages.at(-1)!.before}`));
      expect(pages).toHaveLength(3);
      expect(pages[1]!.lastEventId).toBeUndefined();
      const messages = pages.toReversed().flatMap((p) => p.messages.map((m) => m.id));
      expect(messages).toEqual(sent);
      const turns = pages.flatMap((p) => p.turns);
      expect(turns).toHaveLength(3);
      expect(new Set(turns.map((t) => t.id)).size).toBe(3);
      for (const p of pages) {
        // Each page holds the turn of its own message, with the command's notice and the turn's reply.
        expect(p.turns.map((t) => t.inputIds[0])).toEqual([p.messages[0]!.id]);
        expect(p.turns[0]!.steps.map((s) => s.kind)).toEqual(['tool', 'text']);
        expect(p.replies.map((r) => r.messageIds[0]).sort()).toEqual(p.messages.map((m) => m.id).sort());
        expect(p.messages[0]!.acks.map((k) => k.kind)).toEqual(['received']);
      }
      const replies = pages.flatMap((p) => p.replies.map((r) => r.id));
      expect(new Set(replies).size).toBe(6);
      expect((await gw.api('GET', '/api/conversations/hp1/messages?limit=0')).status).toBe(400);
    },
  );
});
