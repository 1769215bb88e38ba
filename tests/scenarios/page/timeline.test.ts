/**
 * The web app's timeline in a real browser (chromium through playwright-core) against a real
 * gateway on the real CLI and the mock Messages API: streamed text that stays, Markdown with
 * hostile input kept inert, a tool call while it runs and after a reload, and Stop.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppPage, launch, openApp, shot } from '../../support/browser-rig.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let browser: Browser;
/** Waits scale with how long this machine took to show the first page (a busy machine is slow everywhere). */
let budget = 20_000;

const XSS = [
  '<script>window.__xss = "script"</script>',
  '<img src=x onerror="window.__xss = \'img\'">',
  '[click me](javascript:window.__xss="link")',
  '<a href="javascript:window.__xss=\'a\'">raw link</a>',
  '[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '<iframe src="https://example.com/frame"></iframe>',
  '<svg onload="window.__xss=\'svg\'"><circle r="4"/></svg>',
  '![remote picture](https://example.com/tracker.png)',
  '<style>body { display: none }</style>',
  '[ok link](https://example.com/docs) and <mailto:someone@example.com>',
].join('\n\n');

const MARKDOWN = [
  'Here is **bold** and `inline code`.',
  '',
  '- first item',
  '- second item',
  '',
  '| file | lines |',
  '| --- | --- |',
  '| a.ts | 10 |',
  '',
  '```ts',
  'const answer: number = 42;',
  'console.log(answer);',
  '```',
  '',
  XSS,
].join('\n');

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockApi();
  mock.setScript((req) =>
    !req.side && req.lastText.includes('tag:md') ? { kind: 'text', text: MARKDOWN } : undefined,
  );
  gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) });
  browser = await launch();
  budget = Math.min(60_000, Math.max(20_000, (Date.now() - t0) * 10));
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await mock?.close();
});

async function open(conversation?: string): Promise<AppPage> {
  const app = await openApp(browser, gw.ep, { conversation });
  await app.page.getByTestId('input').waitFor({ timeout: budget });
  await app.page.getByTestId('conversations').locator('li').first().waitFor({ timeout: budget });
  return app;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('input').fill(text);
  await page.getByTestId('send').click();
}

/** The open conversation (the address keeps #c=<id>), for a second device. */
const here = (page: Page) => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('c') ?? undefined;

describe('web app timeline (real browser, real CLI)', () => {
  it('streams a reply that stays after it ends, and a reload shows the same acks and reply once', async () => {
    const app = await open();
    const { page } = app;
    expect(page.url()).not.toContain('token=');
    await send(page, 'hello from the page [[slow:1500]] tag:w1');
    await page.getByTestId('streaming').first().waitFor({ timeout: budget });
    const reply = page.getByTestId('reply').last();
    await reply.waitFor({ timeout: budget });
    expect(await reply.textContent()).toMatch(/^ok tag:w1 streaming/);
    await expect
      .poll(() => page.getByTestId('user-message').first().getByTestId('acks').textContent(), { timeout: budget })
      .toContain('👀');
    expect(await page.getByTestId('streaming').count()).toBe(0);

    await page.reload();
    await page.getByTestId('reply').first().waitFor({ timeout: budget });
    expect(await page.getByTestId('reply').count()).toBe(1);
    expect(await page.getByTestId('reply').first().textContent()).toMatch(/^ok tag:w1 streaming/);
    expect(await page.getByTestId('user-message').first().getByTestId('acks').textContent()).toContain('👀');
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it(
    'renders Markdown (bold, list, table, highlighted code with a copy button) and keeps hostile input ' + 'inert',
    async () => {
      const app = await open();
      const { page } = app;
      await app.context.grantPermissions(['clipboard-read', 'clipboard-write']);
      const outside: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith(gw.ep.base)) outside.push(r.url());
      });
      await send(page, `<img src=x onerror="window.__xss='mine'"> please format tag:md`);
      const reply = page.getByTestId('reply').last();
      await reply.waitFor({ timeout: budget });
      expect(await reply.locator('strong').first().textContent()).toBe('bold');
      expect(await reply.locator('li').count()).toBe(2);
      expect(await reply.locator('table td').first().textContent()).toBe('a.ts');
      expect(await reply.locator('pre code').first().textContent()).toContain('const answer: number = 42;');
      // Highlighting arrives lazily, as sanitised spans.
      await reply.locator('pre code.hljs span').first().waitFor({ timeout: budget });
      await reply.locator('.code-block button.copy').first().click();
      await expect
        .poll(() => page.evaluate<string>('navigator.clipboard.readText()'))
        .toContain('console.log(answer);');

      // Nothing ran, nothing was fetched from another host, every link is http(s)/mailto and opens apart.
      expect(await page.evaluate<string | undefined>('window.__xss')).toBeUndefined();
      expect(await reply.locator('script, iframe, img, svg, style').count()).toBe(0);
      expect(await page.locator('a[href^="javascript:"], a[href^="data:"]').count()).toBe(0);
      const links = await reply
        .locator('a[href]')
        .evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.getAttribute('rel'), a.getAttribute('target')]));
      expect(links.length).toBeGreaterThanOrEqual(3);
      for (const [href, rel, target] of links) {
        expect(href).toMatch(/^(https?:|mailto:)/);
        expect(rel).toContain('noopener');
        expect(target).toBe('_blank');
      }
      // Raw HTML shows as the text it is; the person's own text is never markup.
      expect(await reply.textContent()).toContain('<script>window.__xss = "script"</script>');
      expect(await page.getByTestId('user-message').last().textContent()).toContain(
        `<img src=x onerror="window.__xss='mine'">`,
      );
      expect(await page.locator('[data-testid="user-message"] img').count()).toBe(0);
      expect(outside).toEqual([]);
      expect(app.problems).toEqual([]);
      await shot(page, 'markdown-desktop');
      await app.close();
    },
  );

  it(
    'shows a tool call with its command while it runs and its output after; a reload shows the same ' + 'step',
    async () => {
      const app = await open();
      const { page } = app;
      await send(page, 'run it [[bash:echo start; sleep 3]] tag:ts');
      const step = page.getByTestId('tool-step').last();
      await step.waitFor({ timeout: budget });
      expect(await step.getAttribute('data-status')).toBe('running');
      expect(await step.textContent()).toContain('echo start; sleep 3');
      expect(await page.getByTestId('turn').last().getByTestId('turn-status').textContent()).toContain('Working');
      expect(await page.getByTestId('running').textContent()).toContain('Bash: echo start; sleep 3');
      await page.getByTestId('stop').waitFor();
      await shot(page, 'tool-running-desktop');

      await expect.poll(() => step.getAttribute('data-status'), { timeout: budget }).toBe('ok');
      expect(await step.locator('.output pre').textContent()).toBe('start');
      await page.getByTestId('reply').last().waitFor({ timeout: budget });
      await page.getByTestId('stop').waitFor({ state: 'detached', timeout: budget });
      const turnsBefore = await page.getByTestId('turn').count();
      await page.reload();
      const reloaded = page.getByTestId('tool-step').last();
      await reloaded.waitFor({ timeout: budget });
      expect(await reloaded.getAttribute('data-status')).toBe('ok');
      expect(await reloaded.textContent()).toContain('echo start; sleep 3');
      expect(await reloaded.locator('.output pre').textContent()).toBe('start');

      // Another device (a fresh page) shows the same turn.
      const other = await openApp(browser, gw.ep, { conversation: here(page) });
      const again = other.page.getByTestId('tool-step').last();
      await again.waitFor({ timeout: budget });
      expect(await again.getAttribute('data-status')).toBe('ok');
      expect(await again.textContent()).toContain('echo start; sleep 3');
      expect(await again.locator('.output pre').textContent()).toBe('start');
      expect(await other.page.getByTestId('turn').count()).toBe(turnsBefore);
      expect(await other.page.getByTestId('stop').count()).toBe(0);
      await other.close();
      await app.close();
    },
  );

  it(
    'Stop ends the turn without a /stop message, keeps the text streamed so far, and says what it ' + 'stopped',
    async () => {
      const app = await open();
      const { page } = app;
      await send(page, 'talk for a while [[slow:10000]] tag:sp');
      await expect
        .poll(async () => (await page.getByTestId('streaming').textContent({ timeout: budget }))?.length ?? 0, {
          timeout: budget,
        })
        .toBeGreaterThan(20);
      await page.getByTestId('stop').click();
      const notice = page.getByTestId('notice').last();
      await expect
        .poll(() => notice.textContent({ timeout: budget }), { timeout: budget })
        .toContain('Stopped the running turn (“talk for a while');
      const turn = page.getByTestId('turn').last();
      await expect.poll(() => turn.getAttribute('data-status'), { timeout: budget }).toBe('stopped');
      expect(await turn.getByTestId('text-step').last().textContent()).toMatch(/^ok tag:sp streaming/);
      expect(await page.getByTestId('user-message').filter({ hasText: '/stop' }).count()).toBe(0);
      await expect.poll(() => page.getByTestId('user-message').last().getByTestId('acks').textContent()).toContain('⏹');
      await page.getByTestId('stop').waitFor({ state: 'detached' });
      await shot(page, 'stopped-desktop');

      // After a reload the partial text is still there.
      await page.reload();
      await page.getByTestId('turn').last().getByTestId('text-step').last().waitFor({ timeout: budget });
      expect(await page.getByTestId('turn').last().getByTestId('text-step').last().textContent()).toMatch(
        /^ok tag:sp streaming/,
      );
      expect(app.problems).toEqual([]);
      await app.close();
    },
  );
});
