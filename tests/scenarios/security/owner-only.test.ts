/**
 * Owner-only means owner-only, through the whole gateway: the real grammY adapter against the fake
 * Bot API, the real CLI against the mock Messages API. In a group where the owner and an allowed
 * member both talk to Rudder, the member can neither answer the owner's permission request (with a
 * bare option number, mentioned or not) nor stop the owner's turn (with any form of "stop").
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { processesOfRun } from '../../support/procs.js';

const OWNER = 111;
const MEMBER = 333;
const GROUP = -1001234;
let mock: MockApi;
let tg: FakeTelegram;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let claudeHome: string;
let nextId = 1;

/** A group message; `mention` prefixes the bot's handle (with its entity), `replyTo` replies to the bot. */
function groupText(from: number, body: string, o: { mention?: boolean; replyTo?: number } = {}) {
  const handle = `@${tg.bot.username}`;
  const text = o.mention ? `${handle} ${body}` : body;
  return {
    message: {
      message_id: nextId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: GROUP, type: 'supergroup', title: 'team' },
      from: { id: from, is_bot: false, first_name: from === OWNER ? 'Owner' : 'Member' },
      text,
      ...(o.mention ? { entities: [{ type: 'mention', offset: 0, length: handle.length }] } : {}),
      ...(o.replyTo !== undefined
        ? {
            reply_to_message: {
              message_id: o.replyTo,
              date: Math.floor(Date.now() / 1000),
              chat: { id: GROUP, type: 'supergroup', title: 'team' },
              from: { ...tg.bot, is_bot: true },
              text: 'question',
            },
          }
        : {}),
    },
  };
}
/** What the group was sent, as it reads (the HTML of formatted messages stripped). */
const sentToGroup = () =>
  tg
    .callsOf('sendMessage')
    .filter((c) => Number(c.body.chat_id) === GROUP)
    .map((c) => String(c.body.text).replace(/<[^>]+>/g, ''));
const row = (tag: string) =>
  gw.gw.services.store.db
    .prepare('SELECT state, reason FROM messages WHERE text LIKE ? ORDER BY seq DESC LIMIT 1')
    .get(`%${tag}%`) as { state: string; reason: string | null } | undefined;
const rowOf = (text: string) =>
  gw.gw.services.store.db
    .prepare('SELECT state, reason FROM messages WHERE text = ? ORDER BY seq DESC LIMIT 1')
    .get(text) as { state: string; reason: string | null } | undefined;
const rowsOf = (text: string) =>
  gw.gw.services.store.db.prepare('SELECT state, reason FROM messages WHERE text = ? ORDER BY seq').all(text) as Array<{
    state: string;
    reason: string | null;
  }>;

async function start(permissionMode: string) {
  tg = await startFakeTelegram();
  claudeHome = tempDir('chome');
  gw = await startInProcess({
    agent: agentConfig(mock.url, claudeHome, { permissionMode }),
    channels: {
      telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], allow: [MEMBER], pollTimeoutSeconds: 1 },
    },
  });
}

beforeAll(async () => {
  mock = await startMockApi();
});
afterAll(async () => {
  await mock.close();
});
afterEach(async () => {
  await gw?.stop();
  await tg?.close();
});

describe('owner-only, in a Telegram group (real grammY, real CLI)', () => {
  it(
    "a member's bare option number, mentioned or replying, does not answer the owner's permission request; " +
      "the owner's does",
    async () => {
      await start('relay');
      const marker = `${tempDir('perm')}/made-by-tool`;
      tg.pushUpdate(groupText(OWNER, `[[bash:touch ${marker}]] tag:own`, { mention: true }));
      await waitUntil(() => sentToGroup().some((t) => t.startsWith('🔐 The agent asks to use Bash')), 30_000);
      const notice = sentToGroup().find((t) => t.startsWith('🔐'))!;
      expect(notice).toContain('1. Allow');

      // The member answers "1" as a reply to the question, then "@bot 1".
      tg.pushUpdate(groupText(MEMBER, '1', { replyTo: 5001 }));
      tg.pushUpdate(groupText(MEMBER, '1', { mention: true }));
      // Both are ordinary messages for the agent: they wait behind the owner's turn.
      await waitUntil(() => rowsOf('1').length === 2 && rowsOf('1').every((r) => r.state === 'queued'), 10_000);
      expect(gw.gw.services.desk.pending(`telegram:${GROUP}`)).toBeDefined();
      expect(fs.existsSync(marker)).toBe(false);
      expect(sentToGroup().some((t) => t.startsWith('Answered'))).toBe(false);

      tg.pushUpdate(groupText(OWNER, '1', { mention: true }));
      await waitUntil(() => sentToGroup().some((t) => t === 'Answered: Allow.'), 10_000);
      await waitUntil(() => row('tag:own')?.state === 'answered', 30_000);
      expect(fs.existsSync(marker)).toBe(true);
      // The member's numbers reached the agent as text, after the owner's turn.
      await waitUntil(
        () => rowsOf('1').filter((r) => r.state === 'answered' || r.state === 'merged').length === 2,
        30_000,
      );
    },
  );

  it(
    '"stop!!" (or any stop) from a member is refused and the owner\'s turn keeps running; from the owner it ' +
      'stops the turn',
    async () => {
      await start('bypassPermissions');
      // The tool runs until the test lets it finish, so the member's stops surely arrive mid-turn.
      const go = `${tempDir('go')}/go`;
      tg.pushUpdate(
        groupText(OWNER, `work [[bash:until test -f ${go}; do sleep 0.2; done]] tag:long`, { mention: true }),
      );
      await waitUntil(() => processesOfRun(claudeHome).some((p) => p.cmdline.includes(`until test -f ${go}`)), 30_000);

      for (const t of ['stop!!', '/stop', 'Stop.']) tg.pushUpdate(groupText(MEMBER, t, { mention: true }));
      await waitUntil(() => ['stop!!', '/stop', 'Stop.'].every((t) => rowOf(t)?.state === 'refused'), 10_000);
      for (const t of ['stop!!', '/stop', 'Stop.'])
        expect(rowOf(t)).toEqual({ state: 'refused', reason: 'command-owner-only' });
      await waitUntil(
        () => sentToGroup().filter((t) => t === 'Only the owner can use commands here.').length === 3,
        10_000,
      );
      // Never passed to the agent as text either.
      expect(mock.requests.some((r) => /stop!!|Stop\./.test(r.historyText))).toBe(false);
      // A command as a photo's caption: refused too, and its downloaded file is not kept.
      tg.addFile('ph-member', Buffer.from('MEMBERPNG'), 'photos/member.jpg');
      const { text: caption, entities, ...rest } = groupText(MEMBER, '/clear', { mention: true }).message;
      tg.pushUpdate({
        message: {
          ...rest,
          caption,
          caption_entities: entities,
          photo: [{ file_id: 'ph-member', file_unique_id: 'uph', width: 1, height: 1, file_size: 9 }],
        },
      });
      await waitUntil(() => rowOf('/clear')?.state === 'refused', 10_000);
      expect(tg.callsOf('getFile')).toHaveLength(1);
      expect(
        fs
          .readdirSync(path.join(gw.home, 'attachments'), { recursive: true, withFileTypes: true })
          .filter((d) => d.isFile()),
      ).toEqual([]);
      expect(row('tag:long')?.state).toBe('running');
      expect(processesOfRun(claudeHome).some((p) => p.cmdline.includes(`until test -f ${go}`))).toBe(true);
      fs.writeFileSync(go, '');
      await waitUntil(() => row('tag:long')?.state === 'answered', 30_000);

      tg.pushUpdate(groupText(OWNER, 'again [[bash:echo start; sleep 30]] tag:long2', { mention: true }));
      await waitUntil(() => processesOfRun(claudeHome).some((p) => /sleep 30/.test(p.cmdline)), 30_000);
      tg.pushUpdate(groupText(OWNER, 'stop!!', { mention: true }));
      await waitUntil(() => row('tag:long2')?.state === 'stopped', 10_000);
      // The notice names the turn it stopped.
      await waitUntil(
        () => sentToGroup().some((t) => t.startsWith('⏹ Stopped the running turn (“again') && t.includes('sleep 30')),
        10_000,
      );
    },
  );
});

describe('/budget is owner-only (real grammY)', () => {
  it("a member's /budget is refused and changes nothing; the owner's sets today's budget", async () => {
    await start('bypassPermissions');
    const budgets = () =>
      gw.gw.services.store.db.prepare('SELECT project, daily_usd, set_by FROM budget_days').all() as Array<{
        project: string;
        daily_usd: number;
        set_by: string;
      }>;
    tg.pushUpdate(groupText(MEMBER, '/budget 100', { mention: true }));
    await waitUntil(() => sentToGroup().some((t) => t.includes('Only the owner can use commands')), 20_000);
    expect(rowOf('/budget 100')).toMatchObject({ state: 'refused' });
    expect(budgets()).toEqual([]);
    tg.pushUpdate(groupText(OWNER, '/budget 3', { mention: true }));
    await waitUntil(() => sentToGroup().some((t) => t.startsWith("Today's budget for project default is now $3.00")));
    expect(budgets()).toEqual([{ project: 'default', daily_usd: 3, set_by: `telegram:${OWNER} (Owner)` }]);
  });
});
