/**
 * Voice on the page, in Debian's Chromium against a real gateway (real CLI, mock Messages API, the
 * fake stt and tts commands): a reply's ▶ fetches its audio through the authenticated route and the
 * browser really plays it; holding the microphone button records from Chromium's fake microphone
 * (--use-fake-device-for-media-stream: a real MediaRecorder over a generated tone), the recording
 * goes to the gateway and through speech-to-text to the agent, once. Without tts.command there is
 * no ▶; without stt.command no microphone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openApp, shot } from '../../support/browser-rig.js';
import { send } from '../../support/chat-helpers.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi, wrappedCopies } from '../../support/mock-anthropic.js';
import { fakeTts, spokenText } from '../../support/tts-rig.js';

const FAKE_STT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../support/fake-stt.mjs');
let mock: MockApi;
let voiced: Awaited<ReturnType<typeof startInProcess>>;
let plain: Awaited<ReturnType<typeof startInProcess>>;
let browser: Browser;
let budget = 20_000;
const ttsLog = path.join(tempDir('ttslog'), 'runs');

beforeAll(async () => {
  const t0 = Date.now();
  process.env.FAKE_TTS_LOG = ttsLog;
  mock = await startMockApi();
  voiced = await startInProcess({
    agent: agentConfig(mock.url, tempDir('chome')),
    stt: { command: process.execPath, args: [FAKE_STT, '{file}'] },
    tts: fakeTts({ format: 'wav' }),
  });
  plain = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) });
  browser = await launch({ args: ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'] });
  budget = Math.min(60_000, Math.max(20_000, (Date.now() - t0) * 10));
});
afterAll(async () => {
  delete process.env.FAKE_TTS_LOG;
  await browser?.close();
  await voiced?.stop();
  await plain?.stop();
  await mock?.close();
});

/** Records every state the reply's ▶ goes through (the audio plays for under a second). Runs in the page. */
async function watchPlay(page: Page, replyId: string): Promise<void> {
  await page.evaluate(`(() => {
    const id = ${JSON.stringify(replyId)};
    window.__play = [];
    if (window.__watched === id) return;
    window.__watched = id;
    const el = document.querySelector('[data-testid="reply"][data-id="' + id + '"] [data-testid="play"]');
    new MutationObserver(() => window.__play.push(el.getAttribute('data-state'))).observe(el, {
      attributes: true,
      attributeFilter: ['data-state'],
    });
  })()`);
}
const played = (page: Page) => page.evaluate('window.__play') as Promise<string[]>;
const ttsRuns = () => (fs.existsSync(ttsLog) ? fs.readFileSync(ttsLog, 'utf8').trim().split('\n').length : 0);

describe('voice on the page (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    it(`at ${size} size: ▶ on a reply plays it aloud, fetched once with the token`, async () => {
      const conv = `play-${size}`;
      const app = await openApp(browser, voiced.ep, { size, conversation: conv });
      const { page } = app;
      await send(page, `read this to me [[reply:The **tests** pass on ${size}.]]`);
      const reply = page.getByTestId('reply').last();
      await reply.waitFor({ timeout: budget });
      const replyId = (await reply.getAttribute('data-id'))!;
      const play = reply.getByTestId('play');
      await watchPlay(page, replyId);
      const runs = ttsRuns();
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith(`/replies/${replyId}/audio`), { timeout: budget }),
        size === 'phone' ? play.tap() : play.click(),
      ]);
      expect(res.status()).toBe(200);
      expect(res.headers()['content-type']).toBe('audio/wav');
      // The token went in a header, never the address.
      expect(res.url()).not.toContain('token');
      // What the route serves is the reply read by the command (asked again here with the page's token).
      const again = await voiced.api('GET', `/api/conversations/${conv}/replies/${replyId}/audio`);
      expect(spokenText(Buffer.from(await again.arrayBuffer()))).toBe(`The tests pass on ${size}.`);
      // The browser decoded and played it to its end.
      await expect.poll(() => played(page), { timeout: budget }).toEqual(['loading', 'playing', 'idle']);
      expect(ttsRuns()).toBe(runs + 1);
      // Again: from the page's copy, no new request, no new run of the command.
      await watchPlay(page, replyId);
      let asked = 0;
      page.on('request', (r) => void (r.url().includes('/audio') && asked++));
      await (size === 'phone' ? play.tap() : play.click());
      await expect.poll(() => played(page), { timeout: budget }).toEqual(['loading', 'playing', 'idle']);
      expect(asked).toBe(0);
      expect(ttsRuns()).toBe(runs + 1);
      await shot(page, `voice-play-${size}-light`);
      expect(app.problems).toEqual([]);
      await app.close();
      const dark = await openApp(browser, voiced.ep, { size, conversation: conv, dark: true });
      await dark.page.getByTestId('play').last().waitFor({ timeout: budget });
      await shot(dark.page, `voice-play-${size}-dark`);
      await dark.close();
    });
  }

  it('holding the microphone records a voice note that reaches the agent transcribed, once', async () => {
    const conv = 'record-phone';
    const app = await openApp(browser, voiced.ep, { size: 'phone', conversation: conv });
    const { page } = app;
    const record = page.getByTestId('record');
    await record.waitFor({ timeout: budget });
    expect(await page.getByTestId('send').count()).toBe(0);
    const box = (await record.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.getByTestId('recording').waitFor({ timeout: budget });
    await shot(page, 'voice-recording-phone');
    // Hold until the recorder has delivered audio (it hands over a chunk every 250 ms).
    await page.waitForTimeout(1500);
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().includes(`/api/conversations/${conv}/voice`), { timeout: budget }),
      page.mouse.up(),
    ]);
    expect(res.status()).toBe(202);
    expect(res.request().headers()['content-type']).toMatch(/^audio\/webm/);
    const { messageId } = (await res.json()) as { messageId: string };
    const store = voiced.gw.services.store;
    await waitUntil(() => store.message(messageId)?.state === 'answered', budget);
    const row = store.message(messageId)!;
    const file = row.extra.attachments![0]!;
    expect(file).toMatchObject({ kind: 'voice', mime: 'audio/webm' });
    const size = fs.statSync(file.path).size;
    expect(size).toBeGreaterThan(1000);
    // A real WebM from Chromium's recorder (EBML header).
    expect(fs.readFileSync(file.path).subarray(0, 4).toString('hex')).toBe('1a45dfa3');
    const heard = `transcript of ${size} bytes: hello from the voice note`;
    expect(row.extra.transcript).toBe(heard);
    const calls = mock.mainRequests().filter((r) => r.lastUserText.includes(heard));
    expect(calls).toHaveLength(1);
    expect(wrappedCopies(calls[0]!, heard)).toBe(1);
    // The page shows it as a voice note with what was heard, and its answer with ▶.
    const note = page.getByTestId('voice-note').filter({ hasText: heard });
    await note.waitFor({ timeout: budget });
    await page.getByTestId('reply').last().getByTestId('play').waitFor({ timeout: budget });
    await shot(page, 'voice-recorded-phone');
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it('a tap is not a recording; sliding away throws it away: nothing is sent', async () => {
    const app = await openApp(browser, voiced.ep, { size: 'desktop', conversation: 'record-cancel' });
    const { page } = app;
    let posted = 0;
    page.on('request', (r) => void (r.url().includes('/voice') && posted++));
    const record = page.getByTestId('record');
    await record.waitFor({ timeout: budget });
    const box = (await record.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.getByTestId('recording').waitFor({ timeout: budget });
    await page.mouse.move(box.x - 200, box.y - 100, { steps: 4 });
    expect(await page.getByTestId('recording').getAttribute('class')).toContain('away');
    await page.mouse.up();
    await page.getByTestId('recording').waitFor({ state: 'detached' });
    await record.click();
    await page.getByText('Hold the microphone button').waitFor({ timeout: budget });
    expect(posted).toBe(0);
    await app.close();
  });

  it('without tts.command and stt.command nothing changes: no ▶, no microphone, no audio route', async () => {
    const app = await openApp(browser, plain.ep, { size: 'phone', conversation: 'plain' });
    const { page } = app;
    await send(page, 'plain reply tag:plain');
    const reply = page.getByTestId('reply').last();
    await reply.waitFor({ timeout: budget });
    expect(await page.getByTestId('play').count()).toBe(0);
    expect(await page.getByTestId('record').count()).toBe(0);
    await page.getByTestId('send').waitFor();
    const replyId = (await reply.getAttribute('data-id'))!;
    const res = await plain.api('GET', `/api/conversations/plain/replies/${replyId}/audio`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('TTS_NOT_CONFIGURED');
    expect(await (await plain.api('GET', '/api/speech')).json()).toEqual({ transcribe: false, speak: false });
    await app.close();
  });
});
