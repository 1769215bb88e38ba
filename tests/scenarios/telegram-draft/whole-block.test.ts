/**
 * A private Telegram chat's draft ends each block with the whole block, at the default cadence (an update
 * every 3 s): a block the model streams in pieces ("Step", " 2 of 4: waiting", " half a second.") and
 * follows with a short tool shows whole while that tool runs, before the draft moves on to the next block, and before
 * the reply. Real grammY against the fake Bot API, the real CLI against the mock Messages API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/claude-rig.js';
import { type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, type MockReply, type MockRequest, startMockApi } from '../../support/mock-anthropic.js';

const OWNER = 111;
const BLOCK = 'Step 2 of 4: waiting half a second.';
const ANSWER = 'all done now, every step is over tag:whole';
let mock: MockApi;
let tg: FakeTelegram;
let gw: Awaited<ReturnType<typeof startInProcess>> | undefined;

/** The model's calls since the person's message: a tool, the block with a short tool, the answer. */
function script(req: MockRequest): MockReply | undefined {
  const messages: any[] = req.body?.messages ?? [];
  const start = messages.findLastIndex((m) => m.role === 'user' && JSON.stringify(m.content).includes('[[block]]'));
  if (req.side || start < 0) return undefined;
  const answered = messages.slice(start).filter((m) => m.role === 'assistant').length;
  if (answered === 0) return { kind: 'tool', name: 'Bash', input: { command: 'sleep 1', description: 'wait' } };
  if (answered === 1)
    return { kind: 'tool', name: 'Bash', text: BLOCK, input: { command: 'sleep 0.5', description: 'wait' } };
  return { kind: 'text', text: ANSWER };
}

beforeAll(async () => {
  mock = await startMockApi({ script });
  // Streamed as a model does: a few characters at a time, the block within a fraction of the draft interval.
  mock.setLatency({ firstTokenMs: 100, tokensPerSecond: 20 });
  tg = await startFakeTelegram();
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    progress: { minTurnSeconds: 0 },
    channels: { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
  });
});
afterAll(async () => {
  await gw?.stop();
  await tg?.close();
  await mock?.close();
});

describe("a private chat's draft at the default cadence", () => {
  it('shows each block whole before it moves on, while the tool after it runs', async () => {
    tg.pushUpdate({
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: OWNER, type: 'private', first_name: 'P' },
        from: { id: OWNER, is_bot: false, first_name: 'P' },
        text: 'write it [[block]]',
      },
    });
    const isReply = (c: { method: string; body: Record<string, unknown> }) =>
      c.method === 'sendMessage' && String(c.body.text).includes('tag:whole');
    const reply = await tg.waitFor(isReply, 90_000);
    const drafts = tg.callsOf('sendMessageDraft');
    const shown = drafts.map((d) => String(d.body.text));
    const whole = drafts.filter((d) => String(d.body.text).startsWith('Step')).at(-1);
    expect(whole && String(whole.body.text).trim(), shown.join(' | ')).toBe(BLOCK);
    // Before the draft of the next block and before the reply, in the one draft of the turn.
    const next = drafts.find((d) => String(d.body.text).startsWith('all'));
    if (next) expect(whole!.seq).toBeLessThan(next.seq);
    expect(whole!.seq).toBeLessThan(reply.seq);
    expect(new Set(drafts.map((d) => d.body.draft_id)).size).toBe(1);
    // While the tool after it ran: before the model was asked for the answer, with that tool's result.
    const askedForAnswer = mock.mainRequests().filter((r) => r.historyText.includes('[[block]]'))[2]!;
    expect(whole!.at).toBeLessThan(askedForAnswer.at);
  });
});
