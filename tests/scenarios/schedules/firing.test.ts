/**
 * Schedules end to end: a slot fires once into its conversation as a message from `schedule:<name>` (wrapped as
 * external content, through the lane), answered once; a slot whose run still runs is skipped and said; a run past
 * its timeout is stopped and said; `fresh` runs get a conversation each, copied to `deliver`; a missed slot is caught
 * up once within catchUpMinutes (in the session of the run before: `continue`) and recorded as missed past it (a
 * clock moved by days); a heartbeat's quiet answer is not delivered; a permission request of a run waits for the
 * owner. On the real CLI against the mock Messages API, real SQLite.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/schedules/scheduler.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, type MockRequest, startMockApi, wrappedTexts } from '../../support/mock-anthropic.js';

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

interface Firing {
  schedule: string;
  slot_ms: number;
  state: string;
  message_id: string | null;
  conversation_id: string | null;
  message_state: string | null;
}

/** The slots stored for a schedule, read from the data dir's database as it is on disk. */
function firings(home: string, schedule: string): Firing[] {
  const db = new Database(path.join(home, 'rudder.db'), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT f.*, m.state AS message_state FROM schedule_firings f LEFT JOIN messages m ON m.id = f.message_id
         WHERE f.schedule = ? ORDER BY f.slot_ms`,
      )
      .all(schedule) as Firing[];
  } finally {
    db.close();
  }
}

/** How many reply events the store holds for a message (the page's reply is its stored event). */
function storedReplies(home: string, messageId: string): number {
  const db = new Database(path.join(home, 'rudder.db'), { readonly: true });
  try {
    const rows = db.prepare(`SELECT data FROM events WHERE type = 'reply'`).all() as Array<{ data: string }>;
    return rows.filter((r) => {
      const d = JSON.parse(r.data) as { kind?: string; messageIds?: string[] };
      return d.kind === 'reply' && d.messageIds?.includes(messageId);
    }).length;
  } finally {
    db.close();
  }
}

/** The agent's turns a tag started (its first request, not the one after a tool's result). */
function turnsWith(tag: string, requests: MockRequest[] = mock.mainRequests()): MockRequest[] {
  return requests.filter((r) => !r.afterTool && r.lastText.includes(tag));
}

/** A clock `offsetMs` away from the system's, with its timers. */
function shiftedClock(offsetMs: number): Clock {
  return {
    now: () => Date.now() + offsetMs,
    setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
    clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  };
}

const sched = (s: Record<string, unknown>) => ({ timezone: 'UTC', ...s });

describe('schedules (real CLI)', () => {
  it('fires each slot once into its conversation as external content from schedule:<name>, answered once; ' +
    'a slot whose run still runs is skipped and said', async () => {
    const claudeHome = tempDir('chome');
    const h = await startInProcess({
      agent: agentConfig(mock.url, claudeHome),
      shutdownDrainSeconds: 30,
      schedules: {
        tick: sched({
          cron: '*/2 * * * * *',
          prompt: 'Report. [[bash:sleep 4]] tag:tick1',
          session: 'continue',
          deliver: 'web:tick',
        }),
      },
    });
    running.push(h);
    const w = h.watch('tick');
    await w.ready;
    await w.wait('reply', (d) => d.kind === 'reply' && d.text === 'done ok', 60_000);
    await w.wait(
      'reply',
      (d) => d.kind === 'notice' && /was skipped, because the run of .* is still running/.test(String(d.text)),
      30_000,
    );
    await h.stop();
    running.splice(0);

    const rows = firings(h.home, 'tick');
    const ran = rows.filter((r) => r.message_id);
    expect(ran.length).toBeGreaterThanOrEqual(1);
    expect(rows.filter((r) => r.state === 'skipped').length).toBeGreaterThanOrEqual(1);
    // The drain let every run that had started finish: each answered, and each reached the model once. A slot that
    // fired in the instant before the stop (its turn not started yet) stays owed for the next start, never lost.
    const answered = ran.filter((r) => r.message_state === 'answered');
    const owed = ran.filter((r) => r.message_state !== 'answered');
    expect(answered.length).toBeGreaterThanOrEqual(1);
    expect(owed.map((r) => r.message_state).filter((st) => st !== 'queued' && st !== 'accepted')).toEqual([]);
    expect(owed.map((r) => r.slot_ms).filter((slot) => slot !== ran.at(-1)!.slot_ms)).toEqual([]);
    const turns = turnsWith('tag:tick1');
    expect(turns).toHaveLength(answered.length);
    for (const t of turns) expect(t.lastText).toMatch(/<<<EXTERNAL_USER_MESSAGE id=\w+ from="schedule:tick">>>/);
    // Each answered once, read from the store (a run the stop drained may answer after the page's stream closed).
    for (const r of answered) expect(storedReplies(h.home, r.message_id!)).toBe(1);
    // Slots are distinct and a slot never both ran and was skipped.
    expect(new Set(rows.map((r) => r.slot_ms)).size).toBe(rows.length);
  }, 120_000);

  it('fresh: each run in a page conversation of its own, titled by the schedule, copied to deliver', async () => {
    const claudeHome = tempDir('chome');
    const h = await startInProcess({
      agent: agentConfig(mock.url, claudeHome),
      shutdownDrainSeconds: 30,
      schedules: {
        daily: sched({
          cron: '*/3 * * * * *',
          prompt: 'Morning report tag:fresh1',
          session: 'fresh',
          deliver: 'web:home',
        }),
      },
    });
    running.push(h);
    const home = h.watch('home');
    await home.ready;
    const copy = await home.wait('reply', (d) => String(d.text).includes('ok tag:fresh1'), 60_000);
    expect(String(copy.data.text)).toMatch(/^Schedule daily \(.+\):\n\nok tag:fresh1/);
    const [first] = firings(h.home, 'daily');
    expect(first!.conversation_id).toMatch(/^web:s-daily-/);
    const list = (await (await h.api('GET', '/api/conversations')).json()) as any;
    const items = (list.conversations ?? list) as Array<{ key?: string; id?: string; title?: string }>;
    const own = items.find((c) => `web:${c.key ?? c.id}` === first!.conversation_id || c.id === first!.conversation_id);
    expect(own?.title).toMatch(/^daily · /);
  }, 120_000);

  it('a run past its timeoutMinutes is stopped like /stop and said', async () => {
    const claudeHome = tempDir('chome');
    const h = await startInProcess({
      agent: agentConfig(mock.url, claudeHome),
      schedules: {
        slow: sched({
          cron: '*/30 * * * * *',
          prompt: 'Long job [[bash:timeout 60 tail -f /dev/null]] tag:slow1',
          session: 'continue',
          deliver: 'web:slow',
          timeoutMinutes: 0.05,
        }),
      },
    });
    running.push(h);
    const w = h.watch('slow');
    await w.ready;
    const said = await w.wait(
      'reply',
      (d) => d.kind === 'notice' && String(d.text).includes('the run was stopped after'),
      90_000,
    );
    expect(String(said.data.text)).toMatch(/^Schedule slow: the run was stopped after .*timeoutMinutes/);
    await waitUntil(() => firings(h.home, 'slow')[0]?.state === 'timed_out', 10_000);
    const [run] = firings(h.home, 'slow');
    expect(run!.message_state).toBe('stopped');
  }, 120_000);

  it('a slot missed while down is caught up once within catchUpMinutes, recorded missed and told past it', async () => {
    const claudeHome = tempDir('chome');
    const rhome = tempDir('rhome');
    const day = Date.UTC(2030, 2, 4); // Monday 2030-03-04, 00:00 UTC
    const at = (d: number, h: number, m: number, s = 0) => day + d * 86_400_000 + ((h * 60 + m) * 60 + s) * 1000;
    const config = {
      agent: agentConfig(mock.url, claudeHome),
      shutdownDrainSeconds: 30,
      schedules: {
        seven: sched({ cron: '0 7 * * *', prompt: 'Daily tag:seven1', session: 'continue', deliver: 'web:seven' }),
      },
    };
    // 06:59:58 on day 0: the 07:00 slot fires two seconds later.
    const g1 = await startInProcess(config, { home: rhome, clock: shiftedClock(at(0, 6, 59, 58) - Date.now()) });
    const w1 = g1.watch('seven');
    await w1.ready;
    await w1.wait('reply', (d) => d.kind === 'reply' && String(d.text).includes('tag:seven1'), 60_000);
    await g1.stop();
    expect(firings(rhome, 'seven').map((r) => r.slot_ms)).toEqual([at(0, 7, 0)]);

    // Back at 07:30 the next day: that slot is 30 minutes old, within catchUpMinutes (60): it runs once, now.
    const before = turnsWith('tag:seven1').length;
    const g2 = await startInProcess(config, { home: rhome, clock: shiftedClock(at(1, 7, 30) - Date.now()) });
    const w2 = g2.watch('seven', 0);
    await w2.ready;
    await waitUntil(() => w2.of('reply', (d) => d.kind === 'reply').length >= 2, 60_000);
    await g2.stop();
    expect(firings(rhome, 'seven').map((r) => [r.slot_ms, r.state])).toEqual([
      [at(0, 7, 0), 'running'],
      [at(1, 7, 0), 'running'],
    ]);
    expect(turnsWith('tag:seven1').length - before).toBe(1);
    // session continue: the second run goes on in the first one's session, so the agent remembers it.
    const second = turnsWith('tag:seven1').at(-1)!;
    expect(wrappedTexts(second).filter((t) => t.includes('tag:seven1'))).toHaveLength(2);

    // Back at 10:00 two days later: two slots passed, the newest three hours old: recorded missed, told, not run.
    const g3 = await startInProcess(config, { home: rhome, clock: shiftedClock(at(3, 10, 0) - Date.now()) });
    const w3 = g3.watch('seven', 0);
    await w3.ready;
    const told = await w3.wait('reply', (d) => d.kind === 'notice' && String(d.text).includes('missed'), 30_000);
    expect(String(told.data.text)).toMatch(/^Schedule seven: 2 runs, from .* to .*, were missed/);
    // GET /api/status (and `rudder status`) shows the missed run.
    const status = (await (await g3.api('GET', '/api/status')).json()) as any;
    expect(status.schedules[0].problem).toMatchObject({ outcome: 'missed', missedCount: 2 });
    await g3.stop();
    const last = firings(rhome, 'seven').at(-1)!;
    expect([last.slot_ms, last.state, last.message_id]).toEqual([at(3, 7, 0), 'missed', null]);
    expect(turnsWith('tag:seven1').length - before).toBe(1);
  }, 180_000);

  it('a heartbeat (quiet): a reply of only the quiet word is not delivered and the run is quiet; news is', async () => {
    let beats = 0;
    mock.setScript((req) => {
      if (req.side || req.afterTool || !req.lastText.includes('tag:beat1')) return undefined;
      beats++;
      return { kind: 'text', text: beats === 1 ? '**Nothing to report.**' : 'The build is red. tag:news' };
    });
    const h = await startInProcess({
      agent: agentConfig(mock.url, tempDir('chome')),
      schedules: {
        beat: sched({ cron: '*/2 * * * * *', prompt: 'Check the build tag:beat1', quiet: true, deliver: 'web:beat' }),
      },
    });
    running.push(h);
    const w = h.watch('beat', 0);
    await w.ready;
    await w.wait('reply', (d) => String(d.text).includes('The build is red'), 60_000);
    mock.setScript(undefined);
    expect(w.of('reply', (d) => /nothing to report/i.test(String(d.text)))).toHaveLength(0);
    const ran = firings(h.home, 'beat').filter((r) => r.message_id);
    expect(ran[0]!.state).toBe('quiet');
    expect(turnsWith('tag:beat1')[0]!.lastText).toContain('answer with exactly NOTHING_TO_REPORT');
  }, 120_000);

  it("a run's permission request waits for the owner, and the run goes on once the owner allows it", async () => {
    const claudeHome = tempDir('chome');
    const marker = path.join(tempDir('ask'), 'touched');
    const h = await startInProcess({
      agent: agentConfig(mock.url, claudeHome, { permissionMode: 'relay' }),
      schedules: {
        ask: sched({
          cron: '*/30 * * * * *',
          prompt: `Check [[bash:touch ${marker}]] tag:ask1`,
          session: 'continue',
          deliver: 'web:ask',
        }),
      },
    });
    running.push(h);
    const w = h.watch('ask');
    await w.ready;
    const asked = await w.wait('permission', (d) => !d.resolved && !d.withdrawn, 60_000);
    // Nothing answers it but the owner: a while later it still waits, and no reply came.
    await new Promise((r) => setTimeout(r, 1500));
    expect(w.of('reply', (d) => d.kind === 'reply')).toHaveLength(0);
    expect(fs.existsSync(marker)).toBe(false);
    const requestId = String(asked.data.requestId);
    const answer = await h.api('POST', `/api/conversations/ask/permissions/${encodeURIComponent(requestId)}`, {
      optionId: 'allow',
    });
    expect(answer.status).toBeLessThan(300);
    await w.wait('reply', (d) => d.kind === 'reply', 60_000);
    expect(fs.existsSync(marker)).toBe(true);
    expect(wrappedTexts(turnsWith('tag:ask1')[0]!).some((t) => t.includes('tag:ask1'))).toBe(true);
  }, 120_000);
});
