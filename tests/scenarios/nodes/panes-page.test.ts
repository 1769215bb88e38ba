/**
 * The page's "Running now" for a project on a node: a Claude Code TUI a person runs in a pane of their own
 * tmux server on the node's machine (named in the node's agent.tmux.discover) is listed with its pane and
 * state, said to be on the node; "Continue here" opens a new conversation that drives it through the node:
 * a message from the page typed once and answered once, the pane's claude the same process. Real NATS, a
 * real node, the real TUI against the mock, real tmux on a socket the test owns, a real browser (the list
 * looked at 1280×800 and 390×844).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasTmux } from '../../../src/agents/tmux/pane/tmux.js';
import { launch, openApp, shot } from '../../support/browser-rig.js';
import type { MockApi } from '../../support/mock-anthropic.js';
import { type Cluster, conversationIn, useCluster } from '../../support/nodes-rig.js';
import { type PersonPane, startPersonPane } from '../../support/person-pane.js';
import { privateSocket } from '../../support/tmux-rig.js';

const tmuxAvailable = await hasTmux();
const socket = privateSocket('node-page');

let mock: MockApi;
let cl: Cluster;
let pane: PersonPane | undefined;
let browser: Awaited<ReturnType<typeof launch>> | undefined;

useCluster(
  [{ name: 'n1', projects: ['api'], agent: { tmux: { discover: [socket] } } }],
  (s) => void ({ mock, cl } = s),
);
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await pane?.kill();
  await browser?.close();
});

const prompts = (tag: string) => mock.requests.filter((q) => !q.side && q.lastText.includes(tag)).length;

describe.skipIf(!tmuxAvailable)("the page's Running now on a node's project (real browser)", () => {
  it("lists the pane on the node's machine; Continue here drives it from a new conversation", async () => {
    const dir = fs.realpathSync(cl.nodes.n1!.dirs.api!);
    pane = await startPersonPane(mock.url, dir, [], socket);
    await pane.waitFor('ready');
    await pane.submit('started at my desk tag:pgdesk');
    await mock.waitFor((q) => !q.side && q.lastText.includes('tag:pgdesk'), cl.budget());
    await pane.waitFor('ready');
    const pid = pane.pid();

    const first = await conversationIn(cl.front, 'api');
    const app = await openApp(browser!, cl.front.ep, { size: 'desktop', conversation: first });
    const { page } = app;
    const item = page.locator('[data-testid="running-pane"][data-pane="work:0.0"]');
    await item.waitFor({ timeout: cl.budget() });
    expect(await item.getByTestId('running-state').textContent()).toBe('ready');
    expect(await page.getByTestId('running-now').textContent()).toContain('on node n1');
    expect(await item.textContent()).toContain('started at my desk tag:pgdesk');
    await page.getByTestId('running-now').scrollIntoViewIfNeeded();
    await shot(page, 'running-node-desktop-list');
    const phone = await openApp(browser!, cl.front.ep, { size: 'phone', conversation: first });
    const onPhone = phone.page.locator('[data-testid="running-pane"][data-pane="work:0.0"]');
    await onPhone.waitFor({ timeout: cl.budget() });
    expect(await phone.page.getByTestId('running-now').textContent()).toContain('on node n1');
    await phone.page.getByTestId('running-now').scrollIntoViewIfNeeded();
    await shot(phone.page, 'running-node-phone-list');
    // Open in a terminal on a node's conversation (the front's one project): run on the node's machine.
    await phone.page.getByTestId('conversation-menu').tap();
    await phone.page.getByTestId('open-in-terminal').tap();
    await phone.page.getByTestId('terminal-command').waitFor({ timeout: cl.budget() });
    expect(await phone.page.getByTestId('terminal-command').textContent()).toBe(`rudder attach ${first}`);
    expect(await phone.page.getByTestId('terminal-where').textContent()).toContain("node n1's machine");
    await shot(phone.page, 'open-in-terminal-node-phone');
    expect(phone.problems).toEqual([]);
    await phone.close();

    await item.getByTestId('continue-here').click();
    await expect
      .poll(() => page.getByTestId('conversation-title').textContent(), { timeout: cl.budget() })
      .toBe('Pane work:0.0');
    await page.getByTestId('input').fill('from the page tag:pgnode');
    await page.getByTestId('send').click();
    await page.getByTestId('reply').filter({ hasText: 'ok tag:pgnode' }).waitFor({ timeout: cl.budget() });
    expect(prompts('tag:pgnode')).toBe(1);
    expect(pane.pid()).toBe(pid);
    expect(app.problems).toEqual([]);
    await app.close();
  }, 240_000);
});
