/**
 * The review commands in a Telegram group, through the real grammY adapter against the fake Bot
 * API, the real CLI against the mock Messages API and real git: the agent edits its worktree;
 * /diff shows the files with their counts and hunks; a member's /merge is refused and merges
 * nothing; the owner's /commit and /merge land the change on the base; /discard asks with buttons
 * naming the files (ignored ones too), a member's press is refused, the owner's discards once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlToText } from '../../../src/channels/common/markdown/telegram.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type BotMessage, type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { runGit } from '../../support/git-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { agentEdits, bareRemote, projectRepo, read, statusLines, write } from '../../support/review-rig.js';

const OWNER = 111;
const MEMBER = 333;
const GROUP = -100700;
let mock: MockApi;
let tg: FakeTelegram;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let repo: string;
let budget = 30_000;
let nextId = 1;

/** A group message to the bot (its handle mentioned), from a member of the group. */
function groupText(from: number, body: string) {
  const handle = '@rudder_test_bot ';
  return {
    message: {
      message_id: nextId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: GROUP, type: 'supergroup', title: 'Team' },
      from: { id: from, is_bot: false, first_name: `U${from}` },
      text: handle + body,
      entities: [{ type: 'mention', offset: 0, length: handle.length - 1 }],
    },
  };
}

/** Everything the bot sent the group so far, as it reads. */
const said = () =>
  tg
    .callsOf('sendMessage')
    .filter((c) => Number(c.body.chat_id) === GROUP)
    .map((c) => htmlToText(String(c.body.text)));

/** Sends a command and waits for the first new message of the bot that matches. */
async function ask(from: number, text: string, answer: RegExp): Promise<string> {
  const before = said().length;
  tg.pushUpdate(groupText(from, text));
  await waitUntil(
    () =>
      said()
        .slice(before)
        .some((t) => answer.test(t)),
    budget,
  );
  return said()
    .slice(before)
    .find((t) => answer.test(t))!;
}

const buttons = (m: BotMessage) => m.reply_markup?.inline_keyboard?.flat() ?? [];
async function answerOf(queryId: string): Promise<string> {
  const c = await tg.waitFor((x) => x.method === 'answerCallbackQuery' && x.body.callback_query_id === queryId, budget);
  return String(c.body.text);
}

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockApi();
  tg = await startFakeTelegram();
  repo = projectRepo();
  bareRemote(repo);
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    projects: { repo: { path: repo, worktrees: true } },
    channels: {
      telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], allow: [MEMBER], pollTimeoutSeconds: 1 },
    },
  });
  budget = Math.min(120_000, Math.max(30_000, (Date.now() - t0) * 15));
});
afterAll(async () => {
  await gw?.stop();
  await tg?.close();
  await mock?.close();
});

describe('review commands in a Telegram group (real grammY, real CLI, real git)', () => {
  it('/diff, a member’s /merge refused, the owner’s /commit and /merge, /discard confirmed once', async () => {
    const conv = `telegram:${GROUP}`;
    const worktreeOf = () => gw.gw.services.store.projects.get(conv, 'repo')?.worktree ?? '';
    agentEdits(mock, worktreeOf);
    await ask(OWNER, 'Uppercase gamma, drop two, add a parser. tag:review-edit', /Edited a\.txt and b\.txt/);
    mock.setScript(undefined);
    const wt = worktreeOf();
    const branch = runGit(wt, 'branch', '--show-current');
    expect(branch).toMatch(/^rudder\/telegram\//);

    const diff = await ask(OWNER, '/diff', /3 files changed/);
    expect(diff).toContain(`${branch} → main · 0 ahead, 0 behind`);
    expect(diff).toContain('3 files changed · +2 −2');
    expect(diff).toContain('M a.txt +1 −1');
    expect(diff).toMatch(/^-gamma\n\+GAMMA$/m);
    expect(diff).toContain('M b.txt −1');
    expect(diff).toContain('A src/parser.ts +1');
    expect(diff).toContain('+export const parse = (s: string) => s;');

    const head = runGit(repo, 'rev-parse', 'HEAD');
    expect(await ask(MEMBER, '/merge', /Only the owner/)).toBe('Only the owner can use commands here.');
    expect(runGit(repo, 'rev-parse', 'HEAD')).toBe(head);

    expect(await ask(OWNER, '/merge', /merge/i)).toMatch(/uncommitted changes: a\.txt, b\.txt, src\/parser\.ts/);
    const committed = await ask(OWNER, '/commit Uppercase gamma, drop two', /Committed/);
    expect(committed).toMatch(
      new RegExp(`^Committed 3 files on ${branch} \\([0-9a-f]{7}\\): Uppercase gamma, drop two$`),
    );
    expect(await ask(MEMBER, '/merge', /Only the owner/)).toBe('Only the owner can use commands here.');
    expect(runGit(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(await ask(OWNER, '/merge', /Merged/)).toMatch(`Merged ${branch} into main (fast-forward, 1 commit)`);
    expect(runGit(repo, 'log', '--format=%s', '-1')).toBe('Uppercase gamma, drop two');
    expect(read(repo, 'src/parser.ts')).toContain('parse');
    expect(await ask(OWNER, '/push', /Pushed|push/)).toMatch(`Pushed ${branch} to origin`);
    expect(await ask(OWNER, '/pr', /GitHub CLI/)).toMatch(/needs the GitHub CLI, which is not installed/);

    // /discard: nothing yet; then a file and an ignored .env, asked with buttons naming both.
    expect(await ask(OWNER, '/discard', /nothing uncommitted/)).toBe('There is nothing uncommitted to discard.');
    write(wt, 'scratch.txt', 'notes\n');
    write(wt, '.env', 'TOKEN=x\n');
    const before = new Set(tg.messages.keys());
    tg.pushUpdate(groupText(OWNER, '/discard'));
    const find = () =>
      [...tg.messages.values()].find((m) => !before.has(m.message_id) && m.chatId === GROUP && buttons(m).length);
    await waitUntil(() => find() !== undefined, budget);
    const q = find()!;
    const question = htmlToText(q.text);
    expect(question).toContain(`Discard the uncommitted changes on ${branch}? This cannot be undone. 2 paths`);
    expect(question).toContain('• scratch.txt (untracked)');
    expect(question).toContain('• .env (ignored)');
    expect(buttons(q).map((b) => b.text)).toEqual(['Discard 2', 'Keep them']);
    const yes = buttons(q)[0]!.callback_data!;

    expect(await answerOf(tg.press(MEMBER, q.message_id, yes))).toBe('Only the owner can answer this.');
    expect(fs.existsSync(path.join(wt, 'scratch.txt'))).toBe(true);
    expect(await answerOf(tg.press(OWNER, q.message_id, yes))).toBe('Discard 2: working on it.');
    await waitUntil(() => htmlToText(tg.messages.get(q.message_id)!.text).includes('Discarded'), budget);
    const settled = tg.messages.get(q.message_id)!;
    expect(buttons(settled)).toEqual([]);
    expect(htmlToText(settled.text)).toMatch(
      /Discarded 2 uncommitted files: (scratch\.txt, \.env|\.env, scratch\.txt)/,
    );
    expect(htmlToText(settled.text)).toContain(`confirmed by telegram:${OWNER} (U${OWNER})`);
    expect(statusLines(wt)).toEqual([]);
    expect(await answerOf(tg.press(OWNER, q.message_id, yes))).toBe(
      `Already answered by telegram:${OWNER} (U${OWNER}): Discard 2.`,
    );
    // A long /diff goes out in several messages, each within Telegram's limit, every file in one of them.
    for (let i = 0; i < 60; i++) write(wt, `notes/n${String(i).padStart(2, '0')}.txt`, 'line\n'.repeat(30));
    const sentBefore = said().length;
    tg.pushUpdate(groupText(OWNER, '/diff'));
    await waitUntil(
      () =>
        said()
          .slice(sentBefore)
          .some((t) => t.includes('notes/n59.txt')),
      budget,
    );
    const parts = said().slice(sentBefore);
    expect(parts.length).toBeGreaterThanOrEqual(2);
    expect(parts[0]).toContain('60 files changed · +1800 −0');
    for (const t of parts) expect(t.length).toBeLessThanOrEqual(4096);
    for (let i = 0; i < 60; i++)
      expect(parts.filter((t) => t.includes(`A notes/n${String(i).padStart(2, '0')}.txt +30`))).toHaveLength(1);
    fs.rmSync(path.join(wt, 'notes'), { recursive: true });

    // Each discard that ran is in the history once.
    const reviews = gw.gw.services.store.db
      .prepare("SELECT data FROM events WHERE conversation_id = ? AND type = 'review' ORDER BY seq")
      .all(conv)
      .map((r) => JSON.parse((r as { data: string }).data).action);
    expect(reviews).toEqual(['merge', 'commit', 'merge', 'push', 'discard']);
  });
});
