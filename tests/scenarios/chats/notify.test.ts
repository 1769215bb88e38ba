/**
 * What rings in a chat, through the whole gateway (real CLI in relay mode, the real grammY adapter
 * against the fake Bot API): a permission request and a reply notify once, with their first message
 * (the parts after it are sent with disable_notification); the progress card and the text
 * acknowledgements never do. Asserted on every sendMessage the fake recorded, by kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeCall, type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

const OWNER = 111;
let mock: MockApi;
let tg: FakeTelegram;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let nextId = 1;

function text(body: string) {
  return {
    message: {
      message_id: nextId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: OWNER, type: 'private', first_name: 'P' },
      from: { id: OWNER, is_bot: false, first_name: 'P' },
      text: body,
    },
  };
}

const LONG_REPLY = Array.from({ length: 900 }, (_, i) => `line${i}`).join(' ');

beforeAll(async () => {
  mock = await startMockApi({
    // After the tool ran, an answer too long for one Telegram message.
    script: (req) =>
      !req.side && req.afterTool && req.historyText.includes('tag:cn1')
        ? { kind: 'text', text: `${LONG_REPLY} tag:end` }
        : undefined,
  });
  tg = await startFakeTelegram();
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome'), { permissionMode: 'relay' }),
    progress: { minTurnSeconds: 0, editEverySeconds: 1 },
    channels: {
      telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], queueMode: 'followup', pollTimeoutSeconds: 1 },
    },
  });
});
afterAll(async () => {
  await gw?.stop();
  await tg?.close();
  await mock?.close();
});

const sends = () => tg.callsOf('sendMessage');
const rings = (c: FakeCall) => c.body.disable_notification !== true;

describe('what notifies in Telegram (real grammY, real CLI)', () => {
  it('the request and the reply ring once each; the card, later parts and acknowledgements are silent', async () => {
    const marker = `${tempDir('ring')}/ran`;
    const filler = Array.from({ length: 700 }, (_, i) => `word${i}`).join(' ');
    tg.pushUpdate(text(`[[bash:echo ${filler} > /dev/null; echo ran >> ${marker}]] tag:cn1`));
    const prompt = await tg.waitFor(
      (c) =>
        c.method === 'sendMessage' &&
        !!c.body.reply_markup?.inline_keyboard?.flat().length &&
        String(c.body.reply_markup.inline_keyboard[0][0].callback_data).startsWith('p:'),
      60_000,
    );
    // A second message waits in line (followup): its acknowledgement is a text message.
    tg.pushUpdate(text('and then this tag:cn2'));
    const ack = await tg.waitFor(
      (c) => c.method === 'sendMessage' && String(c.body.text).startsWith('⏳ queued'),
      30_000,
    );
    const callback = prompt.body.reply_markup.inline_keyboard[0][0].callback_data as string;
    const promptMessage = [...tg.messages.values()].find((m) => m.texts[0] === prompt.body.text)!;
    tg.press(OWNER, promptMessage.message_id, callback);
    await waitUntil(() => sends().some((c) => String(c.body.text).includes('tag:end')), 60_000);
    await waitUntil(() => sends().some((c) => String(c.body.text).includes('ok tag:cn2')), 60_000);

    const cards = sends().filter((c) => String(c.body.text).startsWith('⏳ Working'));
    expect(cards.length).toBeGreaterThan(0);
    expect(cards.filter(rings)).toEqual([]);

    const promptParts = sends().filter((c) => c.seq <= prompt.seq && /agent asks to use Bash|word\d/.test(c.body.text));
    expect(promptParts.length).toBeGreaterThanOrEqual(2);
    expect(promptParts.map(rings)).toEqual([true, ...promptParts.slice(1).map(() => false)]);

    const replyParts = sends().filter((c) => /line\d/.test(String(c.body.text)));
    expect(replyParts.length).toBeGreaterThanOrEqual(2);
    expect(replyParts.map(rings)).toEqual([true, ...replyParts.slice(1).map(() => false)]);
    // The second message's short reply rings too.
    expect(rings(sends().find((c) => String(c.body.text).includes('ok tag:cn2'))!)).toBe(true);

    expect(rings(ack)).toBe(false);
  });
});
