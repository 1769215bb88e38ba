/**
 * Codex's approval requests through a real gateway (permissionMode relay: on-request, the
 * workspace-write sandbox): answered from the page (HTTP) and from a chat button (the real grammY
 * adapter against the fake Bot API), and declined. The real codex binary against the mock
 * Responses API; a command asks for more than the sandbox allows, so codex asks first.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlToText } from '../../../src/channels/common/markdown/telegram.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { codexAgent, roundTripBudget, sentTimes } from '../../support/codex-gateway.js';
import { type BotMessage, type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { startInProcess } from '../../support/gateway-rig.js';
import { type MockResponses, startMockResponses } from '../../support/mock-responses.js';

const OWNER = 111;
let mock: MockResponses;
let tg: FakeTelegram;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 60_000;
let nextId = 1;

beforeAll(async () => {
  mock = await startMockResponses();
  tg = await startFakeTelegram();
  gw = await startInProcess({
    agent: codexAgent(mock.url, { permissionMode: 'relay' }),
    channels: { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
  });
  budget = await roundTripBudget(gw, 'budget');
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  await tg?.close();
  await mock?.close();
});

const OPTIONS = ['allow', 'allow-prefix', 'deny', 'cancel'];

/** The request's tool output as codex gave it to the model (the request after the command). */
const outputAfter = (needle: string) =>
  mock.requests.filter((q) => q.afterTool && q.historyTexts.some((t) => t.includes(needle))).at(-1)!.toolOutputs;

describe('codex approvals from the page (real codex, relay)', () => {
  it('Allow through the HTTP API runs the command once; a second answer finds nothing waiting', async () => {
    const w = gw.watch('ap');
    await w.ready;
    const marker = `${tempDir('codex-perm')}/allowed`;
    const m = await gw.post('ap', `go [[escalate:echo yes > ${marker}]] tag:ap1`);
    const p = await w.wait('permission', (d) => !d.resolved && !d.withdrawn, budget);
    expect(p.data.toolName).toBe('Bash');
    expect((p.data.input as { command: string }).command).toBe(`echo yes > ${marker}`);
    expect((p.data.options as Array<{ id: string }>).map((o) => o.id)).toEqual(OPTIONS);
    const path = `/api/conversations/ap/permissions/${p.data.requestId}`;
    expect((await gw.api('POST', path, { optionId: 'allow' })).status).toBe(200);
    expect((await gw.api('POST', path, { optionId: 'deny' })).status).toBe(404);
    const r = await w.waitReply(m.messageId, 'reply', budget);
    expect(r.data.text).toBe('done ok');
    expect(fs.readFileSync(marker, 'utf8')).toBe('yes\n');
    expect(outputAfter('tag:ap1').join('')).toMatch(/exited with code 0/);
    const resolved = await w.wait('permission', (d) => d.requestId === p.data.requestId && !!d.resolved, budget);
    expect(resolved.data).toMatchObject({ resolved: 'allow', by: 'web:owner', delivered: true });
    expect(sentTimes(mock.requests, 'tag:ap1')).toBe(1);
    const sentinel = await gw.post('ap', 'sentinel tag:ap2');
    await w.waitReply(sentinel.messageId, 'reply', budget);
    expect(w.repliesFor(m.messageId)).toHaveLength(1);
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('answered');
  });

  it('Deny refuses the command, codex tells the model, and the turn goes on to its answer', async () => {
    const w = gw.watch('dn');
    await w.ready;
    const marker = `${tempDir('codex-perm')}/denied`;
    const m = await gw.post('dn', `go [[escalate:echo no > ${marker}]] tag:dn1`);
    const p = await w.wait('permission', (d) => !d.resolved && !d.withdrawn, budget);
    expect(
      (await gw.api('POST', `/api/conversations/dn/permissions/${p.data.requestId}`, { optionId: 'deny' })).status,
    ).toBe(200);
    const r = await w.waitReply(m.messageId, 'reply', budget);
    expect(r.data.text).toBe('done ok');
    expect(fs.existsSync(marker)).toBe(false);
    expect(outputAfter('tag:dn1').join('')).toMatch(/rejected by user/);
    expect(gw.gw.services.store.message(m.messageId)!.state).toBe('answered');
    expect(sentTimes(mock.requests, 'tag:dn1')).toBe(1);
  });
});

function privateText(text: string) {
  return {
    message: {
      message_id: nextId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: OWNER, type: 'private', first_name: 'Owner' },
      from: { id: OWNER, is_bot: false, first_name: 'Owner' },
      text,
    },
  };
}

/** The bot's message holding permission buttons, once there is one not seen before. */
async function promptMessage(seen: Set<number>): Promise<BotMessage> {
  const find = () =>
    [...tg.messages.values()].find(
      (m) =>
        m.chatId === OWNER &&
        !seen.has(m.message_id) &&
        m.reply_markup?.inline_keyboard?.flat().some((b) => b.callback_data?.startsWith('p:')),
    );
  await waitUntil(() => find() !== undefined, budget);
  return find()!;
}
const buttons = (m: BotMessage) => m.reply_markup?.inline_keyboard?.flat() ?? [];
const sentTexts = () => tg.callsOf('sendMessage').map((c) => htmlToText(String(c.body.text)));
async function answerOf(queryId: string): Promise<string> {
  const c = await tg.waitFor((x) => x.method === 'answerCallbackQuery' && x.body.callback_query_id === queryId, budget);
  return String(c.body.text);
}

describe('codex approvals from a chat button (real codex, fake Telegram)', () => {
  it("a button per codex option; the owner's Allow runs it once, one reply, a second press is a no-op", async () => {
    const seen = new Set<number>();
    const marker = `${tempDir('codex-perm')}/pressed`;
    tg.pushUpdate(privateText(`go [[escalate:echo ran >> ${marker}]] tag:tg1`));
    const prompt = await promptMessage(seen);
    seen.add(prompt.message_id);
    expect(htmlToText(prompt.text)).toContain(`echo ran >> ${marker}`);
    const labels = buttons(prompt).map((b) => b.text);
    expect(labels[0]).toBe('Allow');
    expect(labels).toContain('Deny');
    expect(labels.length).toBe(OPTIONS.length);
    const allow = buttons(prompt)[0]!.callback_data!;
    expect(await answerOf(tg.press(OWNER, prompt.message_id, allow))).toBe('Allow: sent to the agent.');
    await waitUntil(() => sentTexts().some((t) => t === 'done ok'), budget);
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
    await waitUntil(() => buttons(tg.messages.get(prompt.message_id)!).length === 0, budget);
    expect(htmlToText(tg.messages.get(prompt.message_id)!.text)).toContain(`Allow, answered by telegram:${OWNER}`);
    expect(await answerOf(tg.press(OWNER, prompt.message_id, allow))).toMatch(/^Already answered by telegram:111/);
    tg.pushUpdate(privateText('sentinel tag:tg2'));
    await waitUntil(() => sentTexts().some((t) => t === 'ok tag:tg2'), budget);
    expect(sentTexts().filter((t) => t === 'done ok')).toHaveLength(1);
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
    expect(sentTimes(mock.requests, 'tag:tg1')).toBe(1);
  });

  it('"Deny and stop the turn" from a button: nothing runs, the turn ends stopped, the next message runs', async () => {
    const seen = new Set([...tg.messages.keys()]);
    const marker = `${tempDir('codex-perm')}/cancelled`;
    tg.pushUpdate(privateText(`go [[escalate:echo no > ${marker}]] tag:tg3`));
    const prompt = await promptMessage(seen);
    const cancel = buttons(prompt).find((b) => /stop the turn/i.test(b.text))!;
    expect(cancel).toBeDefined();
    expect(await answerOf(tg.press(OWNER, prompt.message_id, cancel.callback_data!))).toMatch(/sent to the agent/);
    const row = () =>
      gw.gw.services.store.db.prepare("SELECT state FROM messages WHERE text LIKE '%tag:tg3%'").get() as {
        state: string;
      };
    await waitUntil(() => row().state === 'stopped', budget);
    expect(fs.existsSync(marker)).toBe(false);
    tg.pushUpdate(privateText('next tag:tg4'));
    await waitUntil(() => sentTexts().some((t) => /ok tag:tg4$/.test(t)), budget);
  });
});
