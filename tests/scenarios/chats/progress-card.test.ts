/**
 * A turn's progress card in Telegram, through the whole gateway: the real grammY adapter against
 * the fake Bot API, the real CLI against the mock Messages API. One card per turn, edited in place
 * at the configured cadence (a 429's retry_after honoured, failed edits never holding up the
 * reply), collapsed at the end (at once, before the reply), and the final reply as a new message.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeCall, type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, type MockReply, type MockRequest, startMockApi } from '../../support/mock-anthropic.js';

const OWNER = 111;
const EDIT_EVERY_S = 1.5;
/**
 * The fake stamps a call when it arrives; the interval counts from the previous answer, so only timer rounding is left.
 */
const TOLERANCE_MS = 5;
const WORDS = ['one', 'two', 'three'];

let mock: MockApi;
let tg: FakeTelegram;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let nextId = 1;

/** Three Bash steps of `sleep 2`, each announced by a line of text, then the answer. */
function threeSteps(req: MockRequest): MockReply | undefined {
  const messages: any[] = req.body?.messages ?? [];
  const start = messages.findLastIndex(
    (m) => m.role === 'user' && JSON.stringify(m.content).includes('[[three-steps]]'),
  );
  if (req.side || start < 0) return undefined;
  const done = messages
    .slice(start)
    .filter((m) => m.role === 'assistant' && JSON.stringify(m.content).includes('"tool_use"')).length;
  if (done < 3)
    return {
      kind: 'tool',
      name: 'Bash',
      text: `Step ${done + 1} of 3: now ${WORDS[done]}`,
      input: { command: `sleep 2; echo ${WORDS[done]}`, description: 'wait' },
    };
  return { kind: 'text', text: 'all three done tag:three' };
}

function text(from: number, body: string) {
  return {
    message: {
      message_id: nextId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: from, type: 'private', first_name: 'P' },
      from: { id: from, is_bot: false, first_name: 'P' },
      text: body,
    },
  };
}

const isCard = (c: FakeCall) => c.method === 'sendMessage' && String(c.body.text).startsWith('⏳ Working');
const cards = () => tg.calls.filter(isCard);
const replies = (needle: string) => tg.callsOf('sendMessage').filter((c) => String(c.body.text).includes(needle));

/** The card's message id, once; the edits of it, in order. */
async function cardAndEdits(): Promise<{ card: FakeCall; edits: FakeCall[] }> {
  await waitUntil(() => cards().length > 0, 30_000);
  const card = cards()[0]!;
  const id = (
    tg.messages.get([...tg.messages.keys()].find((k) => tg.messages.get(k)!.texts[0] === card.body.text)!) ?? {
      message_id: -1,
    }
  ).message_id;
  return { card, edits: tg.callsOf('editMessageText').filter((c) => Number(c.body.message_id) === id) };
}

beforeAll(async () => {
  mock = await startMockApi({ script: threeSteps });
});
afterAll(async () => {
  await mock.close();
});
beforeEach(async () => {
  tg = await startFakeTelegram();
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    progress: { editEverySeconds: EDIT_EVERY_S, minTurnSeconds: 3 },
    channels: { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
  });
});
afterEach(async () => {
  await gw.stop();
  await tg.close();
});

describe('progress card in Telegram (real grammY, real CLI)', () => {
  it(
    'posts one card, edits it with each step at most once per interval, collapses it, then sends the reply ' +
      'as a new message',
    async () => {
      tg.pushUpdate(text(OWNER, 'do the three steps [[three-steps]]'));
      await waitUntil(() => replies('all three done tag:three').length > 0, 60_000);
      // The collapse goes out of the edit rhythm, before the reply.
      await waitUntil(
        async () => (await cardAndEdits()).edits.some((e) => String(e.body.text).startsWith('✓')),
        10_000,
      );
      const { card, edits } = await cardAndEdits();
      if (process.env.SHOW_CARDS)
        console.log([card, ...edits].map((c) => `${c.at - card.at}ms\n${c.body.text}`).join('\n---\n'));

      expect(cards()).toHaveLength(1);
      expect(card.body.disable_notification).toBe(true);
      expect(card.body.reply_markup.inline_keyboard[0][0]).toMatchObject({ text: '⏹ Stop' });
      expect(card.body.reply_markup.inline_keyboard[0][0].callback_data).toMatch(/^s:/);
      // Every step was on the card while the turn ran, the text between tools too.
      const shown = [String(card.body.text), ...edits.map((e) => String(e.body.text))];
      for (const w of WORDS) {
        expect(shown.some((t) => t.includes(`sleep 2; echo ${w}`))).toBe(true);
        expect(shown.some((t) => t.includes(`now ${w}`))).toBe(true);
      }
      // Never two calls on the card closer than the interval while the turn runs (the collapse does not wait).
      const times = [card.at, ...edits.slice(0, -1).map((e) => e.at)];
      for (let i = 1; i < times.length; i++)
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(EDIT_EVERY_S * 1000 - TOLERANCE_MS);
      // Collapsed to one line, without the Stop button; the final edit is the last call on the card.
      const last = edits.at(-1)!;
      expect(String(last.body.text)).toMatch(/^✓ 6 steps · \d+s$/);
      expect(last.body.reply_markup.inline_keyboard).toEqual([]);
      // One final reply, a new message after the card, and after the card's collapse.
      const reply = replies('all three done tag:three');
      expect(reply).toHaveLength(1);
      expect(reply[0]!.seq).toBeGreaterThan(card.seq);
      expect(reply[0]!.seq).toBeGreaterThan(last.seq);
      expect(reply[0]!.body.disable_notification).toBeUndefined();
    },
  );

  it('honours a 429 on an edit: the next edit waits out retry_after, no edit is lost or queued up', async () => {
    let editCalls = 0;
    let limitedAt = 0;
    // The first edit is refused: its 3 s wait ends while the last step still runs, so the card can show it.
    tg.script('editMessageText', (_body, call) => {
      if (++editCalls !== 1) return undefined;
      limitedAt = call.at;
      return {
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: 'Too Many Requests: retry after 3',
          parameters: { retry_after: 3 },
        },
      };
    });
    tg.pushUpdate(text(OWNER, 'again [[three-steps]]'));
    await waitUntil(() => replies('all three done tag:three').length > 0, 60_000);
    await waitUntil(async () => (await cardAndEdits()).edits.some((e) => String(e.body.text).startsWith('✓')), 15_000);
    const { card, edits } = await cardAndEdits();
    const i = edits.findIndex((e) => e.at === limitedAt);
    expect(i).toBe(0);
    // The next call on the card came only after retry_after passed, and just one (coalesced).
    const next = edits[i + 1]!;
    expect(next.at - limitedAt).toBeGreaterThanOrEqual(3000 - TOLERANCE_MS);
    const times = [card.at, ...edits.slice(0, -1).map((e) => e.at)];
    for (let k = 1; k < times.length; k++)
      expect(times[k]! - times[k - 1]!).toBeGreaterThanOrEqual(EDIT_EVERY_S * 1000 - TOLERANCE_MS);
    // Nothing lost: the card ends collapsed over every step, and every step was shown after all.
    expect(String(edits.at(-1)!.body.text)).toMatch(/^✓ 6 steps/);
    const shownOk = [card, ...edits.filter((e) => e.at !== limitedAt)].map((e) => String(e.body.text));
    for (const w of WORDS) expect(shownOk.some((t) => t.includes(`echo ${w}`))).toBe(true);
    expect(replies('all three done tag:three')).toHaveLength(1);
  });

  it(
    'delivers the final reply when every edit fails, and stops editing a card the platform keeps ' + 'refusing',
    async () => {
      tg.script('editMessageText', () => ({
        status: 500,
        body: { ok: false, error_code: 500, description: 'Internal Server Error' },
      }));
      tg.pushUpdate(text(OWNER, 'third [[three-steps]]'));
      await waitUntil(() => replies('all three done tag:three').length > 0, 60_000);
      expect(replies('all three done tag:three')).toHaveLength(1);
      expect(cards()).toHaveLength(1);
      const delivered = () =>
        (
          gw.gw.services.store.db
            .prepare("SELECT COUNT(*) AS n FROM outbox WHERE kind = 'reply' AND delivered_at IS NOT NULL")
            .get() as { n: number }
        ).n;
      await waitUntil(() => delivered() === 1);
      // Bounded: a card whose edits fail is given up on, not retried without end.
      await new Promise((r) => setTimeout(r, EDIT_EVERY_S * 1000 * 2));
      expect(tg.callsOf('editMessageText').length).toBeLessThanOrEqual(5);
    },
  );

  it('posts no card for a quick answer', async () => {
    // The first turn also starts the agent process, which may take longer than minTurnSeconds.
    tg.pushUpdate(text(OWNER, 'hello tag:warm'));
    await waitUntil(() => replies('ok tag:warm').length > 0, 20_000);
    await new Promise((r) => setTimeout(r, 3500));
    const before = { cards: cards().length, edits: tg.callsOf('editMessageText').length };
    tg.pushUpdate(text(OWNER, 'hello tag:quick'));
    await waitUntil(() => replies('ok tag:quick').length > 0, 20_000);
    await new Promise((r) => setTimeout(r, 3500));
    expect(cards().length).toBe(before.cards);
    expect(tg.callsOf('editMessageText').length).toBe(before.edits);
  });
});
