/**
 * A slot fires once whatever happens to the gateway: `kill -9` mid-run, then a restart, and the slot is not fired
 * again (its cut-off turn is run again once, as any cut-off turn is, and answered once). A schedule's first slot that
 * came due while the gateway was down runs once at the next start. On the real CLI against the mock Messages API,
 * the gateway as `rudder start` runs it.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startChild } from '../../support/gateway-rig.js';
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

function slots(
  home: string,
  schedule = 'night',
): Array<{ slot_ms: number; state: string; message_id: string | null; started_at: number }> {
  const db = new Database(path.join(home, 'rudder.db'), { readonly: true });
  try {
    return db
      .prepare('SELECT slot_ms, state, message_id, started_at FROM schedule_firings WHERE schedule = ?')
      .all(schedule) as any;
  } finally {
    db.close();
  }
}

const turnsWith = (tag: string) => mock.mainRequests().filter((r) => !r.afterTool && r.lastText.includes(tag));

describe('a schedule across a crash (real CLI)', () => {
  it('kill -9 mid-run and a restart: the slot ran once, is answered once and is not fired again', async () => {
    const home = tempDir('rhome');
    // Once a minute, at a second a few seconds from now: no second slot comes while the test runs.
    const second = Math.floor(Date.now() / 1000 + 12) % 60;
    const config = {
      agent: agentConfig(mock.url, tempDir('chome')),
      schedules: {
        night: {
          cron: `${second} * * * * *`,
          timezone: 'UTC',
          prompt: 'Night run [[bash:timeout 4 tail -f /dev/null]] tag:night1',
          session: 'continue',
          deliver: 'web:night',
        },
      },
    };
    const first = await startChild(config, { home });
    running.push(first);
    const w1 = first.watch('night');
    await w1.ready;
    await w1.wait('status', (d) => d.state === 'tool', 40_000);
    await first.kill9();
    running.splice(0);
    const [slot] = slots(home);
    expect(slots(home)).toHaveLength(1);
    delete (slot as any).started_at;
    expect(turnsWith('tag:night1')).toHaveLength(1);

    const again = await startChild(config, { home, cwd: first.cwd });
    running.push(again);
    const w2 = again.watch('night', 0);
    await w2.ready;
    await w2.waitReply(slot!.message_id!, 'reply', 40_000);
    // A moment for anything that would fire again (it would fire at start, in the catch-up).
    await new Promise((r) => setTimeout(r, 2000));
    expect(slots(home).map(({ started_at, ...rest }) => rest)).toEqual([slot]);
    expect(w2.repliesFor(slot!.message_id!, 'reply')).toHaveLength(1);
    expect(w2.repliesFor(slot!.message_id!, 'notice').map((e) => e.data.text)).toEqual([
      '↻ Rudder restarted while this message was being worked on; running it again on the resumed session.',
    ]);
    // The cut-off turn, and its one re-run: the slot itself never fired a second time.
    expect(turnsWith('tag:night1')).toHaveLength(2);
  }, 120_000);

  it('a new schedule whose first slot came due while the gateway was down runs once at the next start', async () => {
    const home = tempDir('rhome');
    const config = { agent: agentConfig(mock.url, tempDir('chome')) };
    const first = await startChild(config, { home });
    running.push(first);
    // Once a minute, at a second a few seconds from now; the gateway is killed before it comes.
    const slotAt = Math.ceil((Date.now() + 4000) / 1000) * 1000;
    const second = new Date(slotAt).getUTCSeconds();
    const put = await first.api('PUT', '/api/schedules/dawn', {
      cron: `${second} * * * * *`,
      timezone: 'UTC',
      prompt: 'Dawn run tag:dawn1',
      session: 'continue',
      deliver: 'web:dawn',
    });
    expect(put.status).toBe(200);
    await first.kill9();
    running.splice(0);
    expect(Date.now()).toBeLessThan(slotAt);
    expect(slots(home, 'dawn')).toEqual([]);
    await new Promise((r) => setTimeout(r, slotAt - Date.now() + 1000));

    const restartedAt = Date.now();
    const again = await startChild(config, { home, cwd: first.cwd });
    running.push(again);
    const w = again.watch('dawn', 0);
    await w.ready;
    const fired = slots(home, 'dawn');
    expect(fired.map((f) => [f.slot_ms, f.state])).toEqual([[slotAt, 'running']]);
    expect(fired[0]!.started_at).toBeGreaterThanOrEqual(restartedAt);
    await w.waitReply(fired[0]!.message_id!, 'reply', 40_000);
    expect(w.repliesFor(fired[0]!.message_id!, 'reply')).toHaveLength(1);
    expect(turnsWith('tag:dawn1')).toHaveLength(1);
  }, 120_000);
});
