/**
 * A first run with no key and no login: `rudder start` warns at once with the fix, the first message fails
 * with Rudder's fix (a key, `claude` once in a terminal, or agent.env) shown once on the page, and `/login`
 * answers with the same fix. The built CLI as `npm start` runs it, the real claude (which refuses before any
 * request), a real browser.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openApp } from '../../support/browser-rig.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startChild } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

const FIX = 'Set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN from `claude setup-token`)';
const CAUSE = 'claude has no credentials';
let mock: MockApi;
let gw: Awaited<ReturnType<typeof startChild>> | undefined;

beforeAll(async () => {
  mock = await startMockApi();
  const agent = agentConfig(mock.url, tempDir('nohome'));
  delete (agent.env as Record<string, string>).ANTHROPIC_API_KEY;
  const none = { ANTHROPIC_API_KEY: '', ANTHROPIC_AUTH_TOKEN: '', CLAUDE_CODE_OAUTH_TOKEN: '' };
  gw = await startChild({ agent }, { env: none });
});
afterAll(async () => {
  await gw?.stop();
  await mock?.close();
});

describe('a first run without credentials', () => {
  it('warns at start with the fix', () => {
    const out = gw!.output();
    expect(out).toContain(`rudder: warning: ${CAUSE}`);
    expect(out).toContain(FIX);
  });

  it('fails the first message once, with the fix, and /login says the same', async () => {
    const w = gw!.watch('first', 0);
    await w.ready;
    const m = await gw!.post('first', 'hello');
    const notice = await w.waitReply(m.messageId, 'notice', 60_000);
    expect(String(notice.data.text)).toContain(FIX);
    expect(String(notice.data.text)).not.toContain('rudder doctor');
    expect(mock.requests.length).toBe(0);

    const login = await gw!.post('first', '/login');
    const answer = await w.waitReply(login.messageId, undefined, 20_000);
    expect(String(answer.data.text)).toContain(FIX);
    expect(String(answer.data.text)).not.toContain('Unknown command');
    w.close();

    const browser = await launch();
    try {
      const app = await openApp(browser, gw!.ep, { conversation: 'first' });
      await app.page.getByTestId('notice').nth(1).waitFor({ timeout: 30_000 });
      // The message says it failed, its turn's notice why and the fix: said once in the whole conversation.
      const log = (await app.page.getByTestId('log').textContent()) ?? '';
      expect(log.split('no API key is set').length - 1, log).toBe(1);
      expect(await app.page.getByTestId('user-message').first().locator('.why').textContent()).toBe('Failed');
      expect(app.problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
