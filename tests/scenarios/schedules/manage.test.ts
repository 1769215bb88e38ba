/**
 * Schedules as the owner manages them: /schedules, /schedule run|pause|resume|add from a conversation, answered with
 * the cron line and the next three runs; the page's routes (GET /api/schedules, runs, run, pause, resume, PUT,
 * DELETE) with their stable error codes. On the real CLI against the mock Messages API, real SQLite.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, type Harness, startInProcess } from '../../support/gateway-rig.js';
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

/** Sends a command from the page and returns the text that answers it. */
async function ask(h: Harness, conv: string, text: string): Promise<string> {
  const w = h.watch(conv, 0);
  await w.ready;
  const m = await h.post(conv, text);
  const r = await w.waitReply(m.messageId, undefined, 30_000);
  w.close();
  return String(r.data.text);
}

async function json(r: Response): Promise<any> {
  return { status: r.status, body: await r.json() };
}

const turnsWith = (tag: string) => mock.mainRequests().filter((r) => !r.afterTool && r.lastText.includes(tag));

describe('managing schedules (real CLI)', () => {
  it('/schedules, /schedule add with a plain form, run now, pause and resume, from a conversation', async () => {
    const h = await startInProcess({
      agent: agentConfig(mock.url, tempDir('chome')),
      schedules: {
        morning: {
          cron: '0 7 * * 1-5',
          timezone: 'Europe/Bucharest',
          prompt: 'Morning report tag:morning1',
          session: 'continue',
          deliver: 'web:morning',
        },
      },
    });
    running.push(h);
    const list = await ask(h, 'ops', '/schedules');
    expect(list).toMatch(/• morning: 0 7 \* \* 1-5 \(Europe\/Bucharest\)\n {2}next: \S+/);

    const added = await ask(h, 'ops', '/schedule add standup weekdays at 18:30 | Summarise the open PRs tag:st1');
    // Answered as the cron line it became and its next three runs, so nobody guesses.
    expect(added).toMatch(/^Schedule standup added: 30 18 \* \* 1-5 \(\S+\); next: [^,]+, [^,]+, [^,]+\.$/);
    const listed = (await json(await h.api('GET', '/api/schedules'))).body;
    const standup = listed.schedules.find((s: any) => s.name === 'standup');
    expect([standup.origin, standup.deliver, standup.next.length]).toEqual(['kept', 'web:ops', 3]);

    const w = h.watch('morning', 0);
    await w.ready;
    expect(await ask(h, 'ops', '/schedule run morning')).toBe('Schedule morning runs now.');
    await w.wait('reply', (d) => d.kind === 'reply' && String(d.text).includes('tag:morning1'), 60_000);
    expect(turnsWith('tag:morning1')).toHaveLength(1);

    expect(await ask(h, 'ops', '/schedule pause morning')).toMatch(/^Schedule morning paused/);
    const paused = (await json(await h.api('GET', '/api/schedules'))).body.schedules.find(
      (s: any) => s.name === 'morning',
    );
    expect([paused.paused, paused.next]).toEqual([true, []]);
    expect(await ask(h, 'ops', '/schedule resume morning')).toMatch(/^Schedule morning resumed: next run \S+/);
    expect(await ask(h, 'ops', '/schedule pause nosuch')).toMatch(/^There is no schedule nosuch/);

    const status = (await json(await h.api('GET', '/api/status'))).body;
    const shown = status.schedules.find((s: any) => s.name === 'morning');
    expect(shown).toMatchObject({ cron: '0 7 * * 1-5', paused: false, last: { outcome: 'ran' } });
    expect(Date.parse(shown.next)).toBeGreaterThan(Date.now());
    const runs = (await json(await h.api('GET', '/api/schedules/morning/runs'))).body.runs;
    expect(runs[0]).toMatchObject({ outcome: 'ran', conversationId: 'web:morning', pageKey: 'morning' });
  }, 120_000);

  it('the page: PUT, pause stops the slots, resume, DELETE; unknown, invalid, refused with their codes', async () => {
    const h = await startInProcess({
      agent: agentConfig(mock.url, tempDir('chome')),
      schedules: { cfg: { cron: '@daily', timezone: 'UTC', prompt: 'x', deliver: 'web:cfg' } },
    });
    running.push(h);
    const bad = await json(
      await h.api('PUT', '/api/schedules/fast', { cron: 'every tuesday-ish', prompt: 'p', deliver: 'web:fast' }),
    );
    expect([bad.status, bad.body.error.code]).toEqual([400, 'SCHEDULE_INVALID']);
    expect(bad.body.error.message).toMatch(/cron/);
    const refused = await json(
      await h.api('PUT', '/api/schedules/cfg', { cron: '@hourly', prompt: 'p', deliver: 'web:x' }),
    );
    expect([refused.status, refused.body.error.code]).toEqual([409, 'SCHEDULE_REFUSED']);
    expect((await json(await h.api('POST', '/api/schedules/nosuch/run', {}))).status).toBe(404);

    const put = await json(
      await h.api('PUT', '/api/schedules/fast', {
        cron: '*/2 * * * * *',
        timezone: 'UTC',
        prompt: 'Fast tag:fast1',
        session: 'continue',
        deliver: 'web:fast',
      }),
    );
    expect(put.status).toBe(200);
    const runs = async () => (await json(await h.api('GET', '/api/schedules/fast/runs'))).body.runs as any[];
    await waitUntil(async () => (await runs()).some((r) => r.outcome === 'ran'), 60_000);
    expect((await json(await h.api('POST', '/api/schedules/fast/pause', {}))).status).toBe(200);
    const atPause = (await runs()).length;
    await new Promise((r) => setTimeout(r, 5000));
    expect((await runs()).length).toBe(atPause);
    const resumed = await json(await h.api('POST', '/api/schedules/fast/resume', {}));
    expect(resumed.body.text).toMatch(/^Schedule fast resumed: next run/);
    await waitUntil(async () => (await runs()).length > atPause + 1, 30_000);
    expect((await json(await h.api('DELETE', '/api/schedules/fast'))).status).toBe(200);
    expect((await json(await h.api('GET', '/api/schedules/fast/runs'))).status).toBe(404);
  }, 120_000);
});
