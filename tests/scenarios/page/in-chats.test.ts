/**
 * A chat's permission request answered on the page, in a real browser on a real gateway (real CLI
 * in relay mode against the mock, the real grammY adapter against the fake Bot API): a command too
 * long to approve in Telegram says "answer on the web page", and the page shows it above the open
 * conversation, at phone and desktop size; Approve there runs the tool exactly once, the chat's
 * request says who answered, and the reply reaches the chat once.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlToText } from '../../../src/channels/common/markdown/telegram.js';
import { PROMPT_INPUT_LIMIT } from '../../../src/gateway/permissions/prompt-text.js';
import { STEP_LIMITS } from '../../../src/gateway/steps/types.js';
import type { WaitingList } from '../../../src/http/wire.js';
import { launch, openApp, shot } from '../../support/browser-rig.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

const OWNER = 111;
let mock: MockApi;
let tg: FakeTelegram;
let browser: Awaited<ReturnType<typeof launch>>;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 20_000;
let nextId = 1;

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockApi();
  tg = await startFakeTelegram();
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome'), { permissionMode: 'relay' }),
    channels: { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
  });
  browser = await launch();
  budget = Math.min(60_000, Math.max(20_000, (Date.now() - t0) * 20));
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await tg?.close();
  await mock?.close();
});

const say = (text: string) =>
  tg.pushUpdate({
    message: {
      message_id: nextId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: OWNER, type: 'private', first_name: 'P' },
      from: { id: OWNER, is_bot: false, first_name: 'P' },
      text,
    },
  });
const sent = () => tg.callsOf('sendMessage').map((c) => String(c.body.text));
describe("a chat's permission request answered on the page (real browser, real CLI, Telegram)", () => {
  for (const v of [
    { size: 'phone', dark: false },
    { size: 'phone', dark: true },
    { size: 'desktop', dark: false },
    { size: 'desktop', dark: true },
  ] as const) {
    const tag = `${v.size}-${v.dark ? 'dark' : 'light'}`;
    it(`${tag}: approves a request too long for the chat; the tool runs once`, async () => {
      const marker = `${tempDir('perm')}/ran`;
      const filler = 'y'.repeat(PROMPT_INPUT_LIMIT + 500);
      const command = `echo ${filler} > /dev/null; echo ran >> ${marker}`;
      const repliesBefore = sent().filter((t) => t.startsWith('done ok')).length;
      const asks = () => sent().filter((t) => t.includes('Deny it, or answer on the web page')).length;
      const asksBefore = asks();
      say(`[[bash:${command}]] tag:${tag}`);
      // The chat offers only Deny, and sends the owner to the page.
      await waitUntil(() => asks() > asksBefore, budget);
      const waiting = (await (await gw.api('GET', '/api/permissions')).json()) as WaitingList;
      expect(waiting.requests).toHaveLength(1);
      expect(waiting.requests[0]).toMatchObject({ channel: 'telegram', conversationId: `telegram:${OWNER}` });

      const app = await openApp(browser, gw.ep, { size: v.size, dark: v.dark, conversation: `page-${tag}` });
      try {
        const { page } = app;
        const item = page.getByTestId('in-chat');
        await item.waitFor({ timeout: budget });
        expect(await item.getAttribute('data-channel')).toBe('telegram');
        expect(await item.locator('.channel').textContent()).toBe('Telegram');
        expect(await item.getByTestId('permission-input').textContent()).toBe(command);
        await shot(page, `in-chats-${tag}`);
        await item.getByTestId('permission-allow').click();
        await page.getByTestId('in-chats').waitFor({ state: 'detached', timeout: budget });
        expect(app.problems).toEqual([]);
      } finally {
        await app.close();
      }

      await waitUntil(() => sent().filter((t) => t.startsWith('done ok')).length > repliesBefore, budget);
      expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
      // The tool's result reached the model once; one reply in the chat.
      expect(mock.mainRequests().filter((r) => r.afterTool && r.historyText.includes(marker))).toHaveLength(1);
      expect(sent().filter((t) => t.startsWith('done ok')).length).toBe(repliesBefore + 1);
      // The chat's request says who answered it, and has no buttons left.
      const asked = [...tg.messages.values()].filter((m) => /answer on the web page/.test(m.texts[0]!)).at(-1)!;
      await waitUntil(() => htmlToText(tg.messages.get(asked.message_id)!.text).includes('answered by web:owner'));
      expect(tg.messages.get(asked.message_id)!.reply_markup?.inline_keyboard ?? []).toEqual([]);
      expect((await (await gw.api('GET', '/api/permissions')).json()) as WaitingList).toEqual({ requests: [] });
    });
  }

  it('answers through the API with one of the options only, and only refuses an input not carried whole', async () => {
    const huge = `echo ${'z'.repeat(STEP_LIMITS.permissionInputField + 500)}`;
    mock.setScript((req) =>
      req.lastText.includes('tag:huge') && !req.afterTool
        ? { kind: 'tool', name: 'Bash', input: { command: huge, description: 'a long one' } }
        : undefined,
    );
    const done = () => sent().filter((t) => t.startsWith('done ok')).length;
    const doneBefore = done();
    try {
      say('run the huge one tag:huge');
      let list: WaitingList = { requests: [] };
      await waitUntil(async () => {
        list = (await (await gw.api('GET', '/api/permissions')).json()) as WaitingList;
        return list.requests.length === 1;
      }, budget);
      const { step } = list.requests[0]!;
      expect(step.inputCut).toBe(true);
      const answer = async (requestId: string, body: unknown) => {
        const r = await gw.api('POST', `/api/permissions/${requestId}`, body);
        return { status: r.status, body: (await r.json()) as any };
      };
      const allow = await answer(step.requestId, { optionId: 'allow' });
      expect(allow.status).toBe(400);
      expect(allow.body.error.message).toMatch(/too long to show, so it cannot be approved here/);
      expect((await answer(step.requestId, { optionId: 'maybe' })).body.error.message).toMatch(
        /"maybe" is not one of this request's option ids/,
      );
      expect((await answer('no-such-request', { optionId: 'deny' })).status).toBe(404);
      expect(await answer(step.requestId, { optionId: 'deny' })).toEqual({ status: 200, body: { ok: true } });
      expect((await answer(step.requestId, { optionId: 'deny' })).status).toBe(404);
      // The turn goes on with the refusal and answers once.
      await waitUntil(() => done() === doneBefore + 1, budget);
    } finally {
      mock.setScript(undefined);
    }
  });
});
