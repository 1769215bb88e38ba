/**
 * A permission request of an ACP agent answered from a chat button: Gemini CLI 0.61 (acp:gemini, relay mode) against
 * the mock Gemini API, a real gateway with the real grammY adapter against the fake Bot API. The buttons are the
 * agent's own options; the one the page marks as a refusal is pressed, and the command never runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlToText } from '../../../src/channels/common/markdown/telegram.js';
import { acpAgentConfig, answerTo, sent, tapLog } from '../../support/acp-gateway.js';
import { type AcpRig, startAcpRig } from '../../support/acp-rig.js';
import { waitUntil } from '../../support/claude-rig.js';
import { type BotMessage, type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { startInProcess } from '../../support/gateway-rig.js';

const OWNER = 111;
const BUDGET = 90_000;
let rig: AcpRig;
let tg: FakeTelegram;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let log: string;

beforeAll(async () => {
  rig = await startAcpRig('gemini');
  tg = await startFakeTelegram();
  const config = acpAgentConfig(rig, 'relay');
  log = config.log;
  gw = await startInProcess({
    agent: config.agent,
    channels: { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
  });
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  await tg?.close();
  await rig?.close();
});

let nextId = 1;
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

const buttons = (m: BotMessage) => m.reply_markup?.inline_keyboard?.flat() ?? [];
const sentTexts = () => tg.callsOf('sendMessage').map((c) => htmlToText(String(c.body.text)));

describe('an ACP permission request from a chat button (Gemini CLI, fake Telegram)', () => {
  it("the agent's options are the buttons; the refusal pressed, the command never runs, the turn ends", async () => {
    const conv = `telegram:${OWNER}`;
    tg.pushUpdate(privateText(`${rig.askingShell('touch denied.txt')} tag:tg1`));
    await waitUntil(() => gw.gw.services.desk.pending(conv) !== undefined, BUDGET);
    const { options } = gw.gw.services.desk.pending(conv)!.request;
    const deny = options.find((o) => o.kind === 'deny')!;
    const find = () =>
      [...tg.messages.values()].find(
        (m) => m.chatId === OWNER && buttons(m).some((b) => b.callback_data?.startsWith('p:')),
      );
    await waitUntil(() => find() !== undefined, BUDGET);
    const prompt = find()!;
    expect(htmlToText(prompt.text)).toContain('touch denied.txt');
    // An option that changes later requests too (allow always) is marked ⚠️.
    const labels = buttons(prompt).map((b) => b.text.replace(/^⚠️ /, ''));
    expect(labels).toEqual(expect.arrayContaining(options.map((o) => o.label)));
    const button = buttons(prompt).find((b) => b.text === deny.label)!;
    tg.press(OWNER, prompt.message_id, button.callback_data!);
    await waitUntil(() => gw.gw.services.desk.pending(conv) === undefined, BUDGET);
    // The agent got the refusal as its own option id, and went on to the end of its turn.
    await waitUntil(() => sent(tapLog(log), 'session/prompt').some((p) => answerTo(tapLog(log), p)), BUDGET);
    const prompted = sent(tapLog(log), 'session/prompt').at(-1)!;
    expect(answerTo(tapLog(log), prompted)?.stopReason).toBe('end_turn');
    await waitUntil(() => sentTexts().some((t) => t.includes('ok')), BUDGET);
    expect(fs.existsSync(path.join(rig.cwd, 'denied.txt'))).toBe(false);
    expect(rig.timesSent('tag:tg1')).toBe(1);
  }, 180_000);
});
