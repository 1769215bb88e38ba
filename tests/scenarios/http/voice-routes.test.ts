/**
 * The page's voice routes on a real gateway (real CLI, mock Messages API, the fake stt and tts
 * commands): a recording needs an audio type and a body and is accepted once per clientMessageId;
 * a reply's audio is served for this conversation's delivered replies only, and a failing command
 * is a 502 that says why.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { fakeTts, spokenText } from '../../support/tts-rig.js';

const FAKE_STT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../support/fake-stt.mjs');
let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 20_000;

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockApi();
  gw = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    stt: { command: process.execPath, args: [FAKE_STT, '{file}'] },
    tts: fakeTts(),
  });
  budget = Math.min(60_000, Math.max(20_000, (Date.now() - t0) * 10));
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

const post = (conv: string, body: Buffer | string, type?: string, cm?: string) =>
  fetch(`${gw.ep.base}/api/conversations/${conv}/voice${cm ? `?clientMessageId=${cm}` : ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.ep.token}`, ...(type ? { 'content-type': type } : {}) },
    body,
  });
const code = async (r: Response) => ((await r.json()) as { error: { code: string; message: string } }).error;

describe('voice routes', () => {
  it('a recording needs an audio type and a body; one clientMessageId is one message', async () => {
    const json = await post('sp1', '{"text":"x"}', 'application/json');
    expect(json.status).toBe(415);
    expect((await code(json)).message).toContain('audio content type');
    const empty = await post('sp1', Buffer.alloc(0), 'audio/ogg');
    expect(empty.status).toBe(400);
    const first = await post('sp1', Buffer.from('OGG-RECORDING'), 'audio/ogg; codecs=opus', 'rec-1');
    expect(first.status).toBe(202);
    const { messageId } = (await first.json()) as { messageId: string };
    const again = await post('sp1', Buffer.from('OGG-RECORDING'), 'audio/ogg; codecs=opus', 'rec-1');
    expect(((await again.json()) as { disposition: string }).disposition).toBe('duplicate');
    await waitUntil(() => gw.gw.services.store.message(messageId)?.state === 'answered', budget);
    const heard = 'transcript of 13 bytes: hello from the voice note';
    expect(mock.mainRequests().filter((r) => r.lastUserText.includes(heard))).toHaveLength(1);
  });

  it("serves this conversation's delivered replies spoken, and nothing else", async () => {
    const watch = gw.watch('sp2');
    await watch.ready;
    const { messageId } = await gw.post('sp2', 'speak [[reply:Spoken *words*.]]');
    const reply = await watch.waitReply(messageId, 'reply', budget);
    const id = String(reply.data.outboxId);
    const ok = await gw.api('GET', `/api/conversations/sp2/replies/${id}/audio`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('audio/wav');
    expect(ok.headers.get('cache-control')).toBe('private, no-store');
    expect(spokenText(Buffer.from(await ok.arrayBuffer()))).toBe('Spoken words.');
    // Another conversation's reply, a notice, and no reply at all are not found.
    expect((await gw.api('GET', `/api/conversations/sp1/replies/${id}/audio`)).status).toBe(404);
    const cmd = await gw.post('sp2', '/status');
    const notice = await watch.waitReply(cmd.messageId, 'notice', budget);
    expect((await gw.api('GET', `/api/conversations/sp2/replies/${notice.data.outboxId}/audio`)).status).toBe(404);
    expect((await gw.api('GET', '/api/conversations/sp2/replies/o_nothing/audio')).status).toBe(404);
    // Without the token, nothing.
    const anon = await fetch(`${gw.ep.base}/api/conversations/sp2/replies/${id}/audio`);
    expect(anon.status).toBe(401);
  });

  it('a failing text-to-speech command is a 502 that says why', async () => {
    const watch = gw.watch('sp3');
    await watch.ready;
    const { messageId } = await gw.post('sp3', 'speak [[reply:Never heard.]]');
    const reply = await watch.waitReply(messageId, 'reply', budget);
    process.env.FAKE_TTS_MODE = 'fail';
    try {
      const r = await gw.api('GET', `/api/conversations/sp3/replies/${reply.data.outboxId}/audio`);
      expect(r.status).toBe(502);
      expect(await code(r)).toMatchObject({ code: 'TTS_FAILED' });
      expect(
        (await code(await gw.api('GET', `/api/conversations/sp3/replies/${reply.data.outboxId}/audio`))).message,
      ).toContain('voice model not found');
    } finally {
      delete process.env.FAKE_TTS_MODE;
    }
  });
});
