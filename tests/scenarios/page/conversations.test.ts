/**
 * The conversation list in a real browser on a real gateway (real CLI, mock Messages API): a title
 * from the first message, rename and archive, the unread mark, and a long history in pages.
 */
import { describe, expect, it } from 'vitest';
import { openApp, shot, useWebGateway } from '../../support/browser-rig.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';

const rig = useWebGateway();

/** Holds the page's `method` requests to /api/conversations until the returned function is called. */
async function holdConversations(app: Awaited<ReturnType<typeof openApp>>, method: string): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await app.context.route('**/api/conversations', async (route) => {
    if (route.request().method() !== method) return route.fallback();
    await held;
    await route.fallback();
  });
  return release;
}

describe('conversations (real browser, real CLI)', () => {
  it('titles a conversation by its first message, renames and archives it, and marks another one unread', async () => {
    const app = await openApp(rig.browser, rig.gw.ep, { size: 'phone', conversation: 'first' });
    const { page } = app;
    await page.getByTestId('input').fill('Plan the release notes\nfor version 2');
    await page.getByTestId('send').click();
    await page.getByTestId('reply').waitFor({ timeout: rig.budget });
    await expect
      .poll(() => page.getByTestId('conversation-title').textContent(), { timeout: rig.budget })
      .toBe('Plan the release notes');

    await page.getByTestId('conversation-menu').click();
    await page.getByTestId('rename').click();
    await page.getByTestId('rename-input').fill('Release notes v2');
    await page.getByTestId('rename-input').press('Enter');
    await expect.poll(() => page.getByTestId('conversation-title').textContent()).toBe('Release notes v2');

    // Another conversation gets a reply while this one is open: it shows unread in the list.
    const w = rig.gw.watch('second');
    await w.ready;
    const m = await rig.gw.post('second', 'a question from another device tag:u1');
    await w.waitReply(m.messageId, 'reply', rig.budget);
    await page.getByTestId('drawer-toggle').click();
    const second = page.locator('[data-testid="conversation"][data-id="second"]');
    await second.getByTestId('unread').waitFor({ timeout: rig.budget });
    expect(await page.locator('[data-testid="conversation"][data-id="first"]').textContent()).toContain(
      'Release notes v2',
    );
    await shot(page, 'list-unread-phone');
    await second.locator('button').click();
    await page.getByTestId('reply').filter({ hasText: 'ok tag:u1' }).waitFor({ timeout: rig.budget });
    await expect
      .poll(
        async () =>
          ((await (await rig.gw.api('GET', '/api/conversations/second')).json()) as { unread: boolean }).unread,
        { timeout: rig.budget },
      )
      .toBe(false);

    // Archive it: it leaves the list and is listed apart.
    await page.getByTestId('conversation-menu').click();
    await page.getByTestId('archive').click();
    await page.getByTestId('drawer-toggle').click();
    await page
      .locator('[data-testid="conversations"] [data-id="second"]')
      .waitFor({ state: 'detached', timeout: rig.budget });
    await page.getByTestId('show-archived').click();
    await page.locator('[data-testid="archived-conversations"] [data-id="second"]').waitFor({ timeout: rig.budget });
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it(
    'offers a project picker only when there is a choice, and a conversation made with it works in that ' + 'project',
    async () => {
      // Without a projects config there is one project (the working directory): no picker, no labels.
      const answers: number[] = [];
      const plain = await openApp(rig.browser, rig.gw.ep, {
        conversation: 'noproj',
        setup: async (c) => void c.on('response', (r) => r.url().endsWith('/api/projects') && answers.push(r.status())),
      });
      await plain.page.getByTestId('input').waitFor({ timeout: rig.budget });
      // The page has its answer before the picker is looked for.
      await expect.poll(() => answers, { timeout: rig.budget }).toEqual([200]);
      expect((await (await rig.gw.api('GET', '/api/projects')).json()) as { projects: unknown[] }).toMatchObject({
        projects: [{ name: 'default' }],
      });
      // Desktop: the list is beside the conversation.
      await plain.page.getByTestId('new-conversation').waitFor({ timeout: rig.budget });
      expect(await plain.page.getByTestId('project-picker').count()).toBe(0);
      expect(await plain.page.locator('[data-testid="conversation"] .project').count()).toBe(0);
      await plain.close();

      // A gateway with two projects: the picker starts on the default, and the new conversation runs there.
      const site = tempDir('site');
      const api = tempDir('api');
      const gw2 = await startInProcess({
        agent: agentConfig(rig.mock.url, tempDir('chome')),
        projects: { site: { path: site }, api: { path: api } },
        defaultProject: 'api',
      });
      try {
        const app = await openApp(rig.browser, gw2.ep, { size: 'phone' });
        const { page } = app;
        await page.getByTestId('input').waitFor({ timeout: rig.budget });
        await page.getByTestId('drawer-toggle').click();
        const picker = page.getByTestId('project-picker');
        await picker.waitFor({ timeout: rig.budget });
        expect(await picker.inputValue()).toBe('api');
        await picker.selectOption('site');
        await page.getByTestId('new-conversation').click();
        await page.getByTestId('input').fill('where am I [[bash:pwd]]');
        await page.getByTestId('send').click();
        await page.locator('[data-testid="tool-step"]').filter({ hasText: 'pwd' }).waitFor({ timeout: rig.budget });
        await expect
          .poll(async () => (await page.locator('[data-testid="tool-step"]').last().textContent()) ?? '', {
            timeout: rig.budget,
          })
          .toContain(site);
        await page.getByTestId('drawer-toggle').click();
        expect(await page.locator('[data-testid="conversation"].active .project').textContent()).toBe('site');
        expect(app.problems).toEqual([]);
        await app.close();
      } finally {
        await gw2.stop();
      }
    },
  );

  it('loads a long history in pages as you scroll up', async () => {
    const w = rig.gw.watch('long');
    await w.ready;
    // One real turn, then commands (answered by the gateway alone, quickly).
    const first = await rig.gw.post('long', 'note 0 tag:n0');
    await w.waitReply(first.messageId, 'reply', rig.budget);
    let last = first;
    for (let i = 1; i < 130; i++) last = await rig.gw.post('long', '/help');
    await w.waitReply(last.messageId, 'notice', rig.budget);
    const app = await openApp(rig.browser, rig.gw.ep, { conversation: 'long' });
    const { page } = app;
    await page.getByTestId('notice').first().waitFor({ timeout: rig.budget });
    const bubbles = page.locator('[data-testid="user-message"]');
    expect(await bubbles.count()).toBe(100);
    expect(await bubbles.last().textContent()).toContain('/help');
    expect(await page.getByTestId('load-earlier').count()).toBe(1);
    // Scrolling to the top loads the rest, and the view stays where it was.
    await page.getByTestId('log').evaluate((el) => (el.scrollTop = 0));
    await expect.poll(() => bubbles.count(), { timeout: rig.budget }).toBe(130);
    expect(await bubbles.first().textContent()).toContain('note 0 tag:n0');
    await page.getByTestId('load-earlier').waitFor({ state: 'detached' });
    expect(await page.getByTestId('log').evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it('a drawer opened while the list loads stays open when the page opens the first conversation', async () => {
    const app = await openApp(rig.browser, rig.gw.ep, { size: 'phone', serviceWorkers: 'block' });
    const { page } = app;
    await page.getByTestId('input').waitFor({ timeout: rig.budget });
    // A slow network: the list answers only after the person has opened the drawer.
    const release = await holdConversations(app, 'GET');
    await page.goto(rig.gw.ep.base);
    await page.getByTestId('drawer-toggle').click();
    await page.getByTestId('conversations').waitFor({ state: 'visible', timeout: rig.budget });
    release();
    await expect.poll(() => page.url(), { timeout: rig.budget }).toContain('#c=');
    await page.getByTestId('conversation').first().waitFor({ timeout: rig.budget });
    expect(await page.getByTestId('conversations').isVisible()).toBe(true);
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it('keeps what is typed while a new conversation is being made, in the new one', async () => {
    const app = await openApp(rig.browser, rig.gw.ep, { conversation: 'before-new', serviceWorkers: 'block' });
    const { page } = app;
    await page.getByTestId('input').waitFor({ timeout: rig.budget });
    await page.getByTestId('input').fill('a draft of the old one');
    // The gateway takes its time to make the conversation: the person types meanwhile.
    const release = await holdConversations(app, 'POST');
    await page.getByTestId('new-conversation').click();
    await expect.poll(() => page.getByTestId('input').inputValue()).toBe('');
    await page.getByTestId('input').fill('first words tag:typed-early');
    release();
    await expect.poll(() => page.url(), { timeout: rig.budget }).not.toContain('before-new');
    expect(await page.getByTestId('input').inputValue()).toBe('first words tag:typed-early');
    await page.getByTestId('send').click();
    await page.getByTestId('reply').filter({ hasText: 'ok tag:typed-early' }).waitFor({ timeout: rig.budget });
    // The conversation left keeps its own draft, untouched.
    if (await page.getByTestId('drawer-toggle').isVisible()) await page.getByTestId('drawer-toggle').click();
    await page.locator('[data-testid="conversation"][data-id="before-new"] button').click();
    await expect.poll(() => page.getByTestId('input').inputValue()).toBe('a draft of the old one');
    expect(app.problems).toEqual([]);
    await app.close();
  });
});
