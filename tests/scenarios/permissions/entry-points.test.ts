/**
 * The desk's rules hold whichever way an answer comes (src/gateway/permissions/rules.ts), through the
 * whole gateway on the real CLI (permissionMode relay) against the mock Messages API, with Telegram
 * through the real grammY adapter against the fake Bot API and Web Push against the fake push service.
 * Through each entry point an option the request did not offer is refused, and where it applies so is
 * an approval of an input that surface did not show whole. A refused answer never reaches the agent:
 * the request still waits (its refusal then goes through), and the model gets one tool result, the refusal.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMPT_INPUT_LIMIT } from '../../../src/gateway/permissions/prompt-text.js';
import { STEP_LIMITS } from '../../../src/gateway/steps/types.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakePushService, startFakePush } from '../../support/fake-push.js';
import { type BotMessage, type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

const OWNER = 111;
const FORGED = 'allow-forever';
let mock: MockApi;
let tg: FakeTelegram;
let push: FakePushService;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let nextId = 1;
const budget = 45_000;

beforeAll(async () => {
  mock = await startMockApi();
  tg = await startFakeTelegram();
  push = await startFakePush();
  gw = await startInProcess(
    {
      agent: agentConfig(mock.url, tempDir('chome'), { permissionMode: 'relay' }),
      channels: { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
      push: { subject: 'mailto:owner@example.com' },
    },
    { pushAgent: push.agent },
  );
});
afterAll(async () => {
  await gw?.stop();
  await tg?.close();
  await push?.close();
  await mock?.close();
});

const desk = () => gw.gw.services.desk;
/** The model's requests that carry a tool result of this turn: none while its request waits. */
const toolResults = (tag: string) => mock.mainRequests().filter((r) => r.afterTool && r.historyText.includes(tag));

async function api(method: string, path: string, body?: unknown) {
  const r = await gw.api(method, path, body);
  return { status: r.status, body: (await r.json()) as any };
}

/** Nothing reached the agent: the request waits, its tool did not run, the model got no tool result. */
function stillWaits(requestId: string, tag: string, marker: string): void {
  expect(desk().get(requestId)).toBeDefined();
  expect(fs.existsSync(marker)).toBe(false);
  expect(toolResults(tag)).toEqual([]);
}

/** The turn goes on with the refusal: one tool result reached the model, and the tool never ran. */
async function refusedOnce(tag: string, marker: string): Promise<void> {
  await waitUntil(() => toolResults(tag).length === 1, budget);
  expect(fs.existsSync(marker)).toBe(false);
}

/** A web conversation whose turn asks to run `command` (touching the marker at its end). */
async function webRequest(conv: string, tag: string, filler = '') {
  const marker = `${tempDir('entry')}/${tag}`;
  const command = `${filler ? `: ${filler}; ` : ''}touch ${marker}`;
  mock.setScript((req) =>
    req.lastText.includes(`tag:${tag}`) && !req.afterTool
      ? { kind: 'tool', name: 'Bash', input: { command } }
      : undefined,
  );
  const w = gw.watch(conv);
  await w.ready;
  await gw.post(conv, `go tag:${tag}`);
  const p = await w.wait('permission', (d) => !d.resolved && !d.withdrawn, budget);
  mock.setScript(undefined);
  return { requestId: String(p.data.requestId), marker, tag: `tag:${tag}` };
}

function telegramText(text: string) {
  return {
    message: {
      message_id: nextId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: OWNER, type: 'private', first_name: 'P' },
      from: { id: OWNER, is_bot: false, first_name: 'Owner' },
      text,
    },
  };
}

/** A Telegram turn that asks to touch the marker, and the bot's message with its buttons. */
async function chatRequest(tag: string, filler = '') {
  const marker = `${tempDir('entry')}/${tag}`;
  const seen = new Set(tg.messages.keys());
  tg.pushUpdate(telegramText(`[[bash:${filler ? `: ${filler}; ` : ''}touch ${marker}]] tag:${tag}`));
  const find = () =>
    [...tg.messages.values()].find(
      (m) =>
        !seen.has(m.message_id) &&
        m.reply_markup?.inline_keyboard?.flat().some((b) => b.callback_data?.startsWith('p:')),
    );
  await waitUntil(() => find() !== undefined, budget);
  const prompt: BotMessage = find()!;
  const requestId = desk().pending(`telegram:${OWNER}`)!.request.requestId;
  return { prompt, requestId, marker, tag: `tag:${tag}` };
}

const buttons = (m: BotMessage) => m.reply_markup?.inline_keyboard?.flat() ?? [];
async function pressed(m: BotMessage, data: string): Promise<string> {
  const id = tg.press(OWNER, m.message_id, data);
  const c = await tg.waitFor((x) => x.method === 'answerCallbackQuery' && x.body.callback_query_id === id, 10_000);
  return String(c.body.text);
}
const sentTo = () =>
  tg
    .callsOf('sendMessage')
    .filter((c) => Number(c.body.chat_id) === OWNER)
    .map((c) => String(c.body.text));

describe('the page’s own conversation (POST /api/conversations/:id/permissions/:requestId)', () => {
  it('refuses an option the request did not offer', async () => {
    const r = await webRequest('ep1', 'ep1');
    const path = `/api/conversations/ep1/permissions/${r.requestId}`;
    const forged = await api('POST', path, { optionId: FORGED });
    expect([forged.status, forged.body.error.code]).toEqual([400, 'PERMISSION_NOT_OFFERED']);
    stillWaits(r.requestId, r.tag, r.marker);
    expect(await api('POST', path, { optionId: 'deny' })).toEqual({ status: 200, body: { ok: true } });
    await refusedOnce(r.tag, r.marker);
  });

  it('refuses to approve an input the page could not carry whole', async () => {
    const r = await webRequest('ep2', 'ep2', 'z'.repeat(STEP_LIMITS.permissionInputField + 10));
    const path = `/api/conversations/ep2/permissions/${r.requestId}`;
    const allow = await api('POST', path, { allow: true });
    expect([allow.status, allow.body.error.code]).toEqual([400, 'PERMISSION_NOT_SHOWN_WHOLE']);
    expect(allow.body.error.message).toMatch(/too long to show, so it cannot be approved here/);
    stillWaits(r.requestId, r.tag, r.marker);
    expect((await api('POST', path, { optionId: 'deny' })).status).toBe(200);
    await refusedOnce(r.tag, r.marker);
  });
});

describe('a notification’s button (POST /api/push/action)', () => {
  it('refuses a forged option, and an approval of an input a lock screen could not show whole', async () => {
    const device = push.device();
    const sub = (await api('POST', '/api/push/subscriptions', device.subscription)).body.id as string;
    const r = await webRequest('ep3', 'ep3', 'y'.repeat(300));
    const { tokens } = gw.gw.services;
    const token = (optionId: string) =>
      tokens.sign({
        do: 'answer',
        sub,
        conversationId: 'web:ep3',
        requestId: r.requestId,
        optionId,
        exp: Date.now() + 60_000,
      });
    const act = async (t: string) => {
      const res = await fetch(`${gw.ep.base}/api/push/action`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: t }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const forged = await act(token(FORGED));
    expect([forged.status, forged.body.error.code]).toEqual([400, 'PERMISSION_NOT_OFFERED']);
    const allow = await act(token('allow'));
    expect([allow.status, allow.body.error.code]).toEqual([400, 'PERMISSION_NOT_SHOWN_WHOLE']);
    expect(allow.body.error.message).toMatch(/too long for a notification to show whole/);
    stillWaits(r.requestId, r.tag, r.marker);
    expect(await act(token('deny'))).toEqual({ status: 200, body: { ok: true, text: 'Deny: sent to the agent.' } });
    await refusedOnce(r.tag, r.marker);
  });
});

describe('a chat', () => {
  it('a button whose option the request did not offer is refused', async () => {
    const r = await chatRequest('ep4');
    expect(buttons(r.prompt).map((b) => b.text)).toEqual(['Allow', 'Deny']);
    const ref = /^p:([\w-]+):/.exec(buttons(r.prompt)[0]!.callback_data!)![1]!;
    expect(await pressed(r.prompt, `p:${ref}:9`)).toBe('That option is not offered here.');
    stillWaits(r.requestId, r.tag, r.marker);
    expect(await pressed(r.prompt, buttons(r.prompt)[1]!.callback_data!)).toBe('Deny: sent to the agent.');
    await refusedOnce(r.tag, r.marker);
  });

  it('a reply naming an option the request did not offer is refused, and so is /allow of an input cut', async () => {
    const r = await chatRequest('ep5');
    tg.pushUpdate(telegramText('9'));
    await waitUntil(() => sentTo().some((t) => t.startsWith('Choose one of: 1. Allow, 2. Deny')), budget);
    stillWaits(r.requestId, r.tag, r.marker);
    tg.pushUpdate(telegramText('2'));
    await waitUntil(() => sentTo().some((t) => t.startsWith('Answered: Deny')), budget);
    await refusedOnce(r.tag, r.marker);

    const cut = await chatRequest('ep6', 'x'.repeat(PROMPT_INPUT_LIMIT + 10));
    expect(buttons(cut.prompt).map((b) => b.text)).toEqual(['Deny']);
    tg.pushUpdate(telegramText('/allow'));
    await waitUntil(() => sentTo().some((t) => t.includes('too long to show whole in a chat')), budget);
    stillWaits(cut.requestId, cut.tag, cut.marker);
    tg.pushUpdate(telegramText('/deny'));
    await waitUntil(() => sentTo().filter((t) => t.startsWith('Answered: Deny')).length === 2, budget);
    await refusedOnce(cut.tag, cut.marker);
  });
});

describe('the page answering a chat’s request (POST /api/permissions/:requestId)', () => {
  it('refuses an option the request did not offer; a chat input shown whole on the page may be approved', async () => {
    const r = await chatRequest('ep7');
    const path = `/api/permissions/${r.requestId}`;
    const forged = await api('POST', path, { optionId: FORGED });
    expect([forged.status, forged.body.error.code]).toEqual([400, 'PERMISSION_NOT_OFFERED']);
    expect(forged.body.error.message).toMatch(/"allow-forever" is not one of this request's option ids/);
    stillWaits(r.requestId, r.tag, r.marker);
    expect(await api('POST', path, { optionId: 'deny' })).toEqual({ status: 200, body: { ok: true } });
    await refusedOnce(r.tag, r.marker);
  });
});
