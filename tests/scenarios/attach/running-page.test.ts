/**
 * The page's "Running now" on a new conversation: a Claude Code TUI a person runs in a pane of their
 * own tmux server (named in agent.tmux.discover) is listed for the conversation's project with its
 * pane, state, directory, session and last prompt; "Continue here" opens a new conversation that
 * drives that pane, live: a message typed there once and answered once, the pane's claude the same
 * process. A second "Continue here" on the same pane is refused with the reason shown (one pane, one
 * conversation), and the HTTP answers carry their codes. The real TUI against the mock, real tmux on
 * sockets the test owns, a real browser at 390×844 and 1280×800.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hasTmux } from '../../../src/agents/tmux/pane/tmux.js';
import type { RunningList } from '../../../src/http/wire.js';
import { seriousViolations } from '../../support/axe.js';
import { type AppPage, launch, openApp, shot } from '../../support/browser-rig.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';
import { startPersonPane } from '../../support/person-pane.js';

const tmuxAvailable = await hasTmux();
const WAIT = 60_000;

describe.skipIf(!tmuxAvailable)(
  "the page's Running now: continue a person's live pane (real TUI, real browser)",
  () => {
    let mock: MockApi;
    let browser: Awaited<ReturnType<typeof launch>>;
    const cleanups: Array<() => Promise<void> | void> = [];

    beforeAll(async () => {
      mock = await startMockApi();
      browser = await launch();
    });
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await c();
    });
    afterAll(async () => {
      await browser?.close();
      await mock?.close();
    });

    /** The person's TUI with one prompt answered, and a gateway that looks in its tmux server. */
    async function setUp(size: string) {
      const api = fs.realpathSync(tempDir('api'));
      const pane = await startPersonPane(mock.url, api);
      cleanups.push(() => pane.kill());
      await pane.waitFor('ready');
      await pane.submit(`started at my desk tag:desk-${size}`);
      await mock.waitFor((q) => !q.side && q.lastText.includes(`tag:desk-${size}`), WAIT);
      await pane.waitFor('ready');
      const config = {
        agent: agentConfig(mock.url, tempDir('chome'), { tmux: { discover: [pane.socket] } }),
        projects: { api: { path: api } },
      };
      const gw = await startInProcess(config);
      cleanups.push(() => gw.stop());
      return { api, pane, gw };
    }

    const prompts = (tag: string) => mock.requests.filter((q) => !q.side && q.lastText.includes(tag)).length;
    const shotOf = (page: Page, name: string) => shot(page, `running-${name}`);

    /** A new, empty conversation of the page in the project, opened. */
    async function newConversation(app: AppPage, phone: boolean) {
      const { page } = app;
      if (phone) await page.getByTestId('drawer-toggle').tap();
      const before = new URL(page.url()).hash;
      await page.getByTestId('new-conversation')[phone ? 'tap' : 'click']();
      await expect.poll(() => new URL(page.url()).hash, { timeout: WAIT }).not.toBe(before);
      await page.getByTestId('running-now').waitFor({ timeout: WAIT });
    }

    for (const size of ['phone', 'desktop'] as const) {
      it(`at ${size} size: lists the TUI, Continue here drives it, a second one is refused`, async () => {
        const phone = size === 'phone';
        const { api, pane, gw } = await setUp(size);
        const pid = pane.pid();
        const sid = pane.sessionId();
        expect(sid).toMatch(/^[0-9a-f-]{36}$/);
        const created = await gw.api('POST', '/api/conversations', { project: 'api' });
        const first = ((await created.json()) as { id: string }).id;

        const app = await openApp(browser, gw.ep, { size, conversation: first });
        cleanups.push(() => app.close());
        const { page } = app;
        const tap = (l: ReturnType<Page['locator']>) => (phone ? l.tap() : l.click());

        // Listed with its pane, state, directory, session (short) and last prompt; looking typed nothing.
        const item = page.locator('[data-testid="running-pane"][data-pane="work:0.0"]');
        await item.waitFor({ timeout: WAIT });
        expect(await item.getByTestId('running-state').textContent()).toBe('ready');
        const text = (await item.textContent()) ?? '';
        expect(text).toContain(api);
        expect(text).toContain(sid!.slice(0, 8));
        expect(text).toContain(`started at my desk tag:desk-${size}`);
        expect(prompts(`tag:desk-${size}`)).toBe(1);
        expect(await seriousViolations(page)).toEqual([]);
        await page.getByTestId('running-now').scrollIntoViewIfNeeded();
        await shotOf(page, `${size}-list`);

        // Continue here: a new conversation, opened, attached to the pane.
        await tap(item.getByTestId('continue-here'));
        const opened = () => decodeURIComponent(/c=([^&]+)/.exec(new URL(page.url()).hash)?.[1] ?? '');
        await expect.poll(opened, { timeout: WAIT }).not.toBe(first);
        expect(opened()).toMatch(/^c-/);
        await expect.poll(() => page.getByTestId('conversation-title').textContent()).toBe('Pane work:0.0');
        await page
          .getByTestId('notice')
          .filter({ hasText: 'This conversation now drives the claude in pane work:0.0' })
          .waitFor({ timeout: WAIT });

        // A message typed there reaches the pane once and is answered; the pane's claude is the same process.
        await page.getByTestId('input').fill(`from the page tag:page-${size}`);
        await tap(page.getByTestId('send'));
        await page
          .getByTestId('reply')
          .filter({ hasText: `ok tag:page-${size}` })
          .waitFor({ timeout: WAIT });
        expect(prompts(`tag:page-${size}`)).toBe(1);
        expect(pane.pid()).toBe(pid);
        await shotOf(page, `${size}-attached`);

        // From another new conversation, Continue here on the same pane is refused, with the reason shown.
        await newConversation(app, phone);
        const again = page.locator('[data-testid="running-pane"][data-pane="work:0.0"]');
        await again.waitFor({ timeout: WAIT });
        const third = new URL(page.url()).hash;
        await tap(again.getByTestId('continue-here'));
        const refused = page.getByTestId('running-refused');
        await refused.waitFor({ timeout: WAIT });
        expect(await refused.textContent()).toMatch(
          /one pane, one conversation.*Pane work:0\.0 is driven by conversation/,
        );
        expect(new URL(page.url()).hash).toBe(third);
        expect(await seriousViolations(page)).toEqual([]);
        await refused.scrollIntoViewIfNeeded();
        await shotOf(page, `${size}-refused`);
        // Nothing was typed for the refused one: the pane saw the page's message once, and nothing since.
        expect(prompts(`tag:page-${size}`)).toBe(1);
        expect(pane.pid()).toBe(pid);
        expect(app.problems).toEqual([]);
      }, 240_000);
    }

    it('answers the list and its refusals with their codes, and only with the token', async () => {
      const { pane, gw } = await setUp('http');
      const list = (await (await gw.api('GET', '/api/projects/api/running')).json()) as RunningList;
      const listed = list.running.find((r) => r.attachable);
      expect(listed).toMatchObject({ paneId: pane.paneId, pid: pane.pid(), label: 'work:0.0', state: 'ready' });
      if (!listed?.attachable) throw new Error('the pane is not listed as attachable');
      expect(path.basename(listed.socket)).toBe(pane.socket);
      const ref = { socket: listed.socket, paneId: listed.paneId, pid: listed.pid };

      const gone = await gw.api('POST', '/api/projects/api/running/attach', { ...ref, pid: ref.pid + 100_000 });
      expect(gone.status).toBe(409);
      expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('PANE_GONE');

      const ok = await gw.api('POST', '/api/projects/api/running/attach', ref);
      expect(ok.status).toBe(201);
      const made = (await ok.json()) as { id: string };
      expect(made).toMatchObject({ project: 'api' });

      const held = await gw.api('POST', '/api/projects/api/running/attach', ref);
      expect(held.status).toBe(409);
      expect(((await held.json()) as { error: { code: string } }).error.code).toBe('PANE_HELD');

      const unknown = await gw.api('GET', '/api/projects/nope/running');
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('PROJECT_UNKNOWN');
      const anonymous = await fetch(`${gw.ep.base}/api/projects/api/running`);
      expect(anonymous.status).toBe(401);
    }, 180_000);
  },
);
