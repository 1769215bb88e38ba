/**
 * A turn's end in a Telegram chat, through the whole gateway: the real grammY adapter against the
 * fake Bot API, the real CLI against the mock Messages API. The card collapses before the reply is
 * sent (the collapse outside the edit rhythm, the reply waiting for it and never for an edit slot,
 * and not lost when the collapse fails); the private chat's draft ends with the whole block; a
 * 429's retry_after holds every call to the chat, the typing indicator too; Stop from the card is
 * one message besides its toast, and a tool waiting for permission shows as waiting.
 */
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeCall, type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, type MockReply, type MockRequest, startMockApi } from '../../support/mock-anthropic.js';

const OWNER = 111;
const BLOCK = 'Step 2 of 4: waiting 2 s.';
let mock: MockApi;
let tg: FakeTelegram;
let gw: Awaited<ReturnType<typeof startInProcess>> | undefined;
let nextId = 1;

/** Tool calls the agent made since the user message tagged `tag`, or -1 when no such message is the last one. */
function toolsSince(req: MockRequest, tag: string): number {
  const messages: any[] = req.body?.messages ?? [];
  const start = messages.findLastIndex((m) => m.role === 'user' && JSON.stringify(m.content).includes(tag));
  if (req.side || start < 0) return -1;
  return messages.slice(start).filter((m) => m.role === 'assistant' && JSON.stringify(m.content).includes('"tool_use"'))
    .length;
}

/**
 * [[draft]]: a Bash step, then a text block streamed in pieces followed by a second Bash step, then the answer.
 * [[long-steps]]: three Bash steps of 4 s each, then the answer.
 */
function script(req: MockRequest): MockReply | undefined {
  const draft = toolsSince(req, '[[draft]]');
  if (draft === 0) return { kind: 'tool', name: 'Bash', input: { command: 'sleep 1', description: 'wait' } };
  if (draft === 1)
    return { kind: 'tool', name: 'Bash', text: BLOCK, input: { command: 'sleep 2', description: 'wait' } };
  if (draft === 2) return { kind: 'text', text: 'all done tag:draft' };
  const long = toolsSince(req, '[[long-steps]]');
  if (long >= 0 && long < 3)
    return { kind: 'tool', name: 'Bash', input: { command: `sleep 4; echo step${long}`, description: 'wait' } };
  if (long === 3) return { kind: 'text', text: 'three long steps done tag:long' };
  return undefined;
}

/** A private message from the owner; Telegram dates it in whole seconds (`later`: that many seconds on). */
function text(body: string, later = 0) {
  return {
    message: {
      message_id: nextId++,
      date: Math.floor(Date.now() / 1000) + later,
      chat: { id: OWNER, type: 'private', first_name: 'P' },
      from: { id: OWNER, is_bot: false, first_name: 'P' },
      text: body,
    },
  };
}

async function gateway(progress: Record<string, unknown>, agent: Record<string, unknown> = {}) {
  tg = await startFakeTelegram();
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome'), agent),
    progress,
    channels: { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
  });
}

const isCardPost = (c: FakeCall) => c.method === 'sendMessage' && String(c.body.text).startsWith('⏳ Working');
/** The bot's messages that hold the needle (after a Bash step the mock answers "done ok"). */
const replies = (needle: string) => tg.callsOf('sendMessage').filter((c) => String(c.body.text).includes(needle));
/** The card's message id (the first card of the test). */
async function cardId(): Promise<number> {
  await waitUntil(() => tg.calls.some(isCardPost), 60_000);
  const post = tg.calls.find(isCardPost)!;
  return [...tg.messages.values()].find((m) => m.texts[0] === post.body.text)!.message_id;
}
const editsOf = (id: number) => tg.callsOf('editMessageText').filter((c) => Number(c.body.message_id) === id);
const collapse = (id: number) => editsOf(id).find((e) => /^[✓⏹⚠]/u.test(String(e.body.text)));

beforeAll(async () => {
  mock = await startMockApi({ script });
});
afterAll(async () => {
  await mock.close();
});
afterEach(async (ctx) => {
  if (process.env.SHOW_CALLS || ctx.task.result?.state === 'fail')
    console.log(
      tg.calls
        .filter((c) => c.method !== 'getUpdates')
        .map((c) => `${c.seq} ${c.at} ${c.method} ${String(c.body.text ?? c.body.action ?? '').slice(0, 120)}`)
        .join('\n'),
    );
  mock.setLatency(undefined);
  await gw?.stop();
  gw = undefined;
  await tg.close();
});

describe("a turn's end in a Telegram chat (real grammY, real CLI)", () => {
  it('collapses the card before the reply is sent, without waiting for the next edit slot', async () => {
    // Edits 30 s apart: a collapse that waited for its slot would come long after the reply.
    await gateway({ editEverySeconds: 30, minTurnSeconds: 0 });
    tg.pushUpdate(text('[[bash:sleep 2]] tag:c1'));
    const id = await cardId();
    await waitUntil(() => replies('done ok').length > 0, 60_000);
    const reply = replies('done ok');
    expect(reply).toHaveLength(1);
    const collapsed = collapse(id);
    expect(collapsed, 'the card was collapsed when the reply was sent').toBeDefined();
    expect(String(collapsed!.body.text)).toMatch(/^✓ 1 step · \d+s$/);
    expect(collapsed!.seq).toBeLessThan(reply[0]!.seq);
    // One collapse; nothing on the card after it.
    expect(editsOf(id).at(-1)!.seq).toBe(collapsed!.seq);
  });

  it('sends the reply once even when the collapse is refused', async () => {
    await gateway({ editEverySeconds: 30, minTurnSeconds: 0 });
    tg.script('editMessageText', (body) =>
      /^✓/u.test(String(body.text))
        ? { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: message to edit not found' } }
        : undefined,
    );
    tg.pushUpdate(text('[[bash:sleep 2]] tag:c2'));
    const id = await cardId();
    await waitUntil(() => replies('done ok').length > 0, 60_000);
    const refused = collapse(id);
    expect(refused).toBeDefined();
    const reply = replies('done ok');
    expect(reply).toHaveLength(1);
    expect(refused!.seq).toBeLessThan(reply[0]!.seq);
    // The fake saw the send; the outbox marks it delivered when the answer is back: a moment later under load.
    const delivered = () =>
      (
        gw!.gw.services.store.db
          .prepare("SELECT COUNT(*) AS n FROM outbox WHERE kind = 'reply' AND delivered_at IS NOT NULL")
          .get() as { n: number }
      ).n;
    await waitUntil(() => delivered() > 0, 30_000);
    expect(delivered()).toBe(1);
  });

  it('a collapse refused with a 429 goes again when retry_after passed, still before the reply', async () => {
    await gateway({ editEverySeconds: 30, minTurnSeconds: 0 });
    let limitedAt = 0;
    tg.script('editMessageText', (body, call) => {
      if (limitedAt || !/^✓/u.test(String(body.text))) return undefined;
      limitedAt = call.at;
      return {
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: 'Too Many Requests: retry after 2',
          parameters: { retry_after: 2 },
        },
      };
    });
    tg.pushUpdate(text('[[bash:sleep 2]] tag:c3'));
    const id = await cardId();
    await waitUntil(() => replies('done ok').length > 0, 60_000);
    const collapses = editsOf(id).filter((e) => /^✓/u.test(String(e.body.text)));
    expect(collapses).toHaveLength(2);
    const reply = replies('done ok');
    expect(reply).toHaveLength(1);
    expect(collapses[1]!.seq).toBeLessThan(reply[0]!.seq);
    expect(collapses[1]!.at - limitedAt).toBeGreaterThanOrEqual(2000 - 5);
  });

  it("ends a private chat's draft with the whole block, not its first piece", async () => {
    // Streamed as a model does: "Step", " 2 of 4: waiting", " 2 s." within a fraction of the draft interval.
    mock.setLatency({ firstTokenMs: 100, tokensPerSecond: 20 });
    await gateway({ editEverySeconds: 1, minTurnSeconds: 0 });
    tg.pushUpdate(text('write it [[draft]]'));
    await waitUntil(() => replies('all done tag:draft').length > 0, 90_000);
    const drafts = tg.callsOf('sendMessageDraft').map((c) => String(c.body.text));
    const ofBlock = drafts.filter((t) => t.startsWith('Step'));
    expect(ofBlock.length).toBeGreaterThan(0);
    expect(ofBlock.at(-1)!.trim()).toBe(BLOCK);
    expect(replies('all done tag:draft')).toHaveLength(1);
  });

  it("holds every call to the chat for a 429's retry_after, the typing indicator included", async () => {
    const RETRY_AFTER_S = 6;
    await gateway({ editEverySeconds: 1, minTurnSeconds: 0 });
    let limitedAt = 0;
    tg.script('editMessageText', (_body, call) => {
      if (limitedAt) return undefined;
      limitedAt = call.at;
      return {
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: `Too Many Requests: retry after ${RETRY_AFTER_S}`,
          parameters: { retry_after: RETRY_AFTER_S },
        },
      };
    });
    tg.pushUpdate(text('go [[long-steps]]'));
    await waitUntil(() => replies('three long steps done tag:long').length > 0, 90_000);
    expect(limitedAt).toBeGreaterThan(0);
    const holdEnds = limitedAt + RETRY_AFTER_S * 1000;
    const toChat = tg.calls.filter((c) => Number(c.body.chat_id) === OWNER);
    const during = toChat.filter((c) => c.at > limitedAt && c.at < holdEnds - 5);
    // Typing is sent every 4 s while a turn runs: within the 6 s hold it would have been sent at least once.
    expect(during.map((c) => c.method)).toEqual([]);
    // The indicator came back after the hold, while the turn still ran.
    const lastStepEnd = tg.calls.find((c) => c.method === 'sendMessage' && String(c.body.text).includes('tag:long'))!;
    expect(tg.callsOf('sendChatAction').some((c) => c.at >= holdEnds - 5 && c.seq < lastStepEnd.seq)).toBe(true);
    expect(replies('three long steps done tag:long')).toHaveLength(1);
  });

  it('shows a tool waiting for permission as waiting, and Stop from the card gives one message', async () => {
    await gateway({ editEverySeconds: 1, minTurnSeconds: 0 }, { permissionMode: 'relay' });
    const marker = `${tempDir('perm')}/never`;
    tg.pushUpdate(text(`[[bash:touch ${marker}]] tag:s1`));
    const id = await cardId();
    await waitUntil(() => [...tg.messages.values()].some((m) => /agent asks to use Bash/.test(m.text)), 30_000);
    // The card shows the request (and is edited again at its cadence while it waits: a running tool's time ticks).
    const asking = () => tg.messages.get(id)!.texts.filter((t) => t.includes('waiting for your answer'));
    await waitUntil(() => asking().length > 0, 30_000);
    await new Promise((r) => setTimeout(r, 2500));
    for (const t of asking()) {
      expect(t).not.toContain('▶️');
      expect(t).toContain('⏸ <b>Bash</b>');
      expect(t).toContain('waiting for approval');
    }

    const stop = tg.messages.get(id)!.reply_markup!.inline_keyboard![0]![0]!.callback_data!;
    expect(stop).toMatch(/^s:/);
    const before = tg.callsOf('sendMessage').length;
    const query = tg.press(OWNER, id, stop);
    const toast = await tg.waitFor((c) => c.method === 'answerCallbackQuery' && c.body.callback_query_id === query);
    expect(toast.body.text).toBe('⏹ Stopping the turn.');
    await waitUntil(() => /^⏹ stopped after/u.test(tg.messages.get(id)!.text), 30_000);
    await waitUntil(() => replies('⏹ Stopped the running turn').length > 0, 30_000);
    // A later turn's reply fences the check: anything the stop sent came before it. Dated after the stop's second,
    // else it counts as sent before the stop and is ended by it.
    tg.pushUpdate(text('after the stop tag:s2', 1));
    await waitUntil(() => replies('ok tag:s2').length > 0, 60_000);
    const sent = tg
      .callsOf('sendMessage')
      .slice(before)
      .filter((c) => !isCardPost(c))
      .map((c) => String(c.body.text))
      .filter((t) => !t.includes('tag:s2'));
    expect(sent).toEqual([expect.stringMatching(/^⏹ Stopped the running turn \(.*\)\. The session is kept\.$/)]);
    expect(fs.existsSync(marker)).toBe(false);
  });
});
