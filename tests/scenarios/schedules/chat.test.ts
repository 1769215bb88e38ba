/**
 * A schedule delivering to a chat: each fresh run in a page conversation of its own, its answer sent to the
 * Telegram chat once per slot, headed with the run (the real grammY adapter against a fake Bot API, the real CLI
 * against the mock Messages API).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

const OWNER = 111;
let mock: MockApi;
let tg: FakeTelegram;
beforeAll(async () => {
  mock = await startMockApi();
  tg = await startFakeTelegram();
});
afterAll(async () => {
  await tg?.close();
  await mock?.close();
});

const sent = () => tg.callsOf('sendMessage').map((c) => String(c.body.text));

describe('a schedule delivering to a chat (real CLI, Telegram)', () => {
  it('each slot ran once and its answer reached the chat once, headed with the run', async () => {
    const h = await startInProcess({
      agent: agentConfig(mock.url, tempDir('chome')),
      shutdownDrainSeconds: 30,
      channels: { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
      schedules: {
        news: {
          cron: '*/3 * * * * *',
          timezone: 'UTC',
          prompt: 'News tag:tg1',
          session: 'fresh',
          deliver: `telegram:${OWNER}`,
        },
      },
    });
    await waitUntil(() => sent().filter((t) => t.includes('ok tag:tg1')).length >= 2, 60_000);
    await h.stop();
    const db = new Database(path.join(h.home, 'rudder.db'), { readonly: true });
    const ran = db
      .prepare(
        "SELECT slot_ms, conversation_id FROM schedule_firings WHERE schedule = 'news' AND message_id IS NOT NULL",
      )
      .all() as Array<{ slot_ms: number; conversation_id: string }>;
    db.close();
    const answers = sent().filter((t) => t.includes('ok tag:tg1'));
    // One answer per slot that ran, each headed with its own run, and each model turn once.
    expect(answers).toHaveLength(ran.length);
    for (const a of answers) expect(a).toMatch(/^Schedule news \(.+\):\n\nok tag:tg1/);
    expect(mock.mainRequests().filter((r) => !r.afterTool && r.lastText.includes('tag:tg1'))).toHaveLength(ran.length);
    expect(new Set(ran.map((r) => r.conversation_id)).size).toBe(ran.length);
  }, 120_000);
});
