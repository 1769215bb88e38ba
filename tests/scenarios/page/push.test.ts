/**
 * Notifications in a real browser (Debian's chromium) on a real gateway (real CLI in relay mode,
 * mock Messages API), pushed with the real web-push library to the fake push service, which
 * decrypts them with the device's keys as a browser's push service path would end.
 *
 * What is real and what is not: the page's opt-in (the ⋯ menu, the browser's permission, granted
 * here as a person would), its POST of the subscription, the gateway's push, its encryption and
 * VAPID signature (checked by the fake service), the service worker receiving the push
 * (ServiceWorker.deliverPushMessage over the DevTools protocol, with the payload the fake service
 * decrypted), showing the notification (registration.getNotifications()), and the worker's call to
 * the gateway when a button is tapped. Not real: headless chromium cannot make a push subscription
 * here (in a fresh profile it is refused, in a persistent one it waits for Google's push service,
 * which this machine cannot reach), so pushManager.subscribe() in the page returns a subscription
 * of the fake service's, made with keys this test holds; and a tap is a NotificationEvent
 * dispatched in the worker through the DevTools protocol (no protocol command clicks a notification),
 * whose work the tap waits for as the browser would keep the worker alive for it.
 */
import fs from 'node:fs';
import type { BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushPayload } from '../../../src/http/wire.js';
import { launch, openApp, SIZES, shot } from '../../support/browser-rig.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeDevice, type FakePushService, type ReceivedPush, startFakePush } from '../../support/fake-push.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, startMockApi } from '../../support/mock-anthropic.js';

let mock: MockApi;
let push: FakePushService;
let gw: Awaited<ReturnType<typeof startInProcess>>;
let browser: Awaited<ReturnType<typeof launch>>;
let budget = 20_000;

beforeAll(async () => {
  const t0 = Date.now();
  mock = await startMockApi();
  push = await startFakePush();
  gw = await startInProcess(
    { agent: agentConfig(mock.url, tempDir('chome'), { permissionMode: 'relay' }) },
    { pushAgent: push.agent },
  );
  browser = await launch();
  budget = Math.min(60_000, Math.max(20_000, (Date.now() - t0) * 20));
});
afterAll(async () => {
  await browser?.close();
  await gw?.stop();
  await push?.close();
  await mock?.close();
});

/** The browser's part of subscribing, which cannot reach a push service here: a subscription of the fake one. */
function stubSubscribe(device: FakeDevice['subscription']): void {
  const g = globalThis as any;
  let current: unknown = null;
  g.PushManager.prototype.subscribe = async (opts: { applicationServerKey: Uint8Array }) => {
    current = {
      endpoint: device.endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true, applicationServerKey: opts.applicationServerKey.slice().buffer },
      toJSON: () => device,
      unsubscribe: async () => ((current = null), true),
    };
    return current;
  };
  g.PushManager.prototype.getSubscription = async () => current;
}

async function optIn(context: BrowserContext, page: Page): Promise<FakeDevice> {
  const device = push.device();
  await context.grantPermissions(['notifications'], { origin: gw.ep.base });
  await page.evaluate(stubSubscribe, device.subscription);
  await page.getByTestId('conversation-menu').click();
  await page.getByTestId('notify-on').click();
  await page
    .getByTestId('toast')
    .filter({ hasText: 'Notifications are on for this device' })
    .waitFor({ timeout: budget });
  return device;
}

/** The page's service worker, and a DevTools session that can deliver pushes to it. */
async function worker(context: BrowserContext, page: Page): Promise<{ sw: Worker; cdp: CDPSession; regId: string }> {
  await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
  const cdp = await context.newCDPSession(page);
  const regs: Array<{ registrationId: string; scopeURL: string; isDeleted: boolean }> = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => regs.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');
  await waitUntil(() => regs.some((r) => !r.isDeleted), budget);
  await waitUntil(() => context.serviceWorkers().length > 0, budget);
  return { sw: context.serviceWorkers()[0]!, cdp, regId: regs.find((r) => !r.isDeleted)!.registrationId };
}

async function deliver(w: { cdp: CDPSession; regId: string }, p: ReceivedPush): Promise<void> {
  await w.cdp.send('ServiceWorker.deliverPushMessage', { origin: gw.ep.base, registrationId: w.regId, data: p.text });
}

/**
 * Hands the push to the browser until it shows one notification. DevTools' delivery stands in for the push service,
 * and on a very busy machine it can be lost while the browser restarts an idle service worker: it is handed again,
 * as a push service retries; the same tag replaces, so one notification is all that can show.
 */
async function deliverShown(w: { cdp: CDPSession; regId: string }, p: ReceivedPush, page: Page): Promise<void> {
  const end = Date.now() + budget;
  for (;;) {
    await deliver(w, p);
    const by = Math.min(end, Date.now() + 5000);
    while (Date.now() < by && (await shown(page)).length !== 1) await new Promise((r) => setTimeout(r, 100));
    if ((await shown(page)).length === 1) return;
    if (Date.now() >= end) throw new Error(`the notification did not show within ${budget} ms`);
  }
}

interface Shown {
  title: string;
  body: string;
  tag: string;
  actions: Array<{ action: string; title: string }>;
}
const shown = (page: Page) =>
  page.evaluate<Shown[]>(
    `navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((ns) =>
      ns.map((n) => ({ title: n.title, body: n.body, tag: n.tag,
        actions: n.actions.map((a) => ({ action: a.action, title: a.title })) })))`,
  );

/** A tap on the notification with this tag (on one of its buttons, or on its body with ''), in the worker. */
function tap(sw: Worker, tag: string, action: string): Promise<void> {
  return sw.evaluate(
    async ([t, a]) => {
      const self = globalThis as any;
      const [n] = await self.registration.getNotifications({ tag: t });
      if (!n) throw new Error(`no notification ${t}`);
      const e = new self.NotificationEvent('notificationclick', { notification: n, action: a });
      // A script's event cannot be kept alive by the browser: the tap waits here for what the worker does.
      const work: Promise<unknown>[] = [];
      Object.defineProperty(e, 'waitUntil', { value: (p: Promise<unknown>) => work.push(p) });
      self.dispatchEvent(e);
      if (work.length !== 1) throw new Error('the worker did not keep the tap alive');
      await work[0];
    },
    [tag, action] as const,
  );
}

const waitPush = (d: FakeDevice, pred: (p: PushPayload) => boolean) =>
  push.waitFor((p) => p.device === d.id && pred(p.json<PushPayload>()), budget);

describe('notifications (real browser, real CLI, fake push service)', () => {
  it('opt in from the menu; a pushed request shows Approve and Deny; Approve runs the tool once', async () => {
    const app = await openApp(browser, gw.ep, { size: 'phone', conversation: 'watching' });
    const { page, context } = app;
    await page.getByTestId('input').waitFor({ timeout: budget });
    const device = await optIn(context, page);
    expect(gw.gw.services.store.push.count()).toBe(1);
    expect(await page.evaluate('Notification.permission')).toBe('granted');
    const w = await worker(context, page);

    const marker = `${tempDir('wpush')}/ran`;
    const watch = gw.watch('elsewhere');
    await watch.ready;
    const m = await gw.post('elsewhere', `[[bash:echo ran >> ${marker}]] tag:wp1`);
    const p = await waitPush(device, (x) => x.kind === 'permission');
    await deliverShown(w, p, page);
    const [n] = await shown(page);
    expect(n!.title).toContain('Bash waits for you');
    expect(n!.body).toContain(`echo ran >> ${marker}`);
    // Chromium shows two buttons: Approve and Deny (Stop is third, for a device that shows more).
    expect(n!.actions).toEqual([
      { action: 'approve', title: 'Approve' },
      { action: 'deny', title: 'Deny' },
    ]);

    await tap(w.sw, n!.tag, 'approve');
    await watch.waitReply(m.messageId, 'reply', budget);
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
    expect(mock.mainRequests().filter((r) => r.afterTool && r.historyText.includes('tag:wp1')).length).toBe(1);
    await waitUntil(async () => (await shown(page)).length === 0, budget);
    expect(gw.gw.services.store.message(m.messageId)?.state).toBe('answered');

    // The same notification again (a second device's, a stale one): its Approve says it is no longer waiting.
    await deliverShown(w, p, page);
    await tap(w.sw, n!.tag, 'approve');
    await waitUntil(async () => (await shown(page))[0]?.body.includes('no longer waiting') === true, budget);
    expect((await shown(page))[0]!.actions).toEqual([]);
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it('a tap on the body opens that conversation; the one on screen is not pushed until it is left', async () => {
    const app = await openApp(browser, gw.ep, { conversation: 'here' });
    const { page, context } = app;
    await page.getByTestId('input').waitFor({ timeout: budget });
    const device = await optIn(context, page);
    const w = await worker(context, page);
    // The page shows "here", visible and focused: its request is not pushed; another conversation's is.
    await waitUntil(() => gw.gw.services.presence.watching('web:here'), budget);
    await gw.post('here', `[[bash:touch ${tempDir('wpush')}/h]] tag:wp2`);
    await gw.post('there', `[[bash:touch ${tempDir('wpush')}/t]] tag:wp3`);
    const there = await waitPush(device, (x) => x.conversation === 'there');
    await waitUntil(() => gw.gw.services.desk.pending('web:here') !== undefined, budget);
    expect(
      push.received.filter((x) => x.device === device.id && x.json<PushPayload>().conversation === 'here'),
    ).toEqual([]);

    await deliverShown(w, there, page);
    await tap(w.sw, there.json<PushPayload>().tag, '');
    await expect.poll(() => page.evaluate('location.hash'), { timeout: budget }).toBe('#c=there');
    await page.getByTestId('turn').getByTestId('permission').waitFor({ timeout: budget });
    // "here" is no longer on screen: its request, still waiting, is pushed now.
    const here = await waitPush(device, (x) => x.conversation === 'here');
    expect(here.json<PushPayload>().kind).toBe('permission');
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it('mutes a conversation from the menu, and turns notifications off on the device', async () => {
    const app = await openApp(browser, gw.ep, { size: 'phone', conversation: 'quiet' });
    const { page, context } = app;
    await page.getByTestId('input').waitFor({ timeout: budget });
    await optIn(context, page);
    await page.getByTestId('conversation-menu').click();
    await page.getByTestId('notify-mute').click();
    await page.getByTestId('toast').filter({ hasText: 'No notifications for this conversation' }).waitFor();
    expect(gw.gw.services.store.push.isMuted('web:quiet')).toBe(true);
    await page.getByTestId('conversation-menu').click();
    expect(await page.getByTestId('notify-mute').textContent()).toContain('Unmute this conversation');
    await shot(page, 'notify-on-phone-light');
    const before = gw.gw.services.store.push.count();
    await page.getByTestId('notify-off').click();
    await page.getByTestId('toast').filter({ hasText: 'Notifications are off for this device' }).waitFor();
    expect(gw.gw.services.store.push.count()).toBe(before - 1);
    await page.getByTestId('conversation-menu').click();
    await page.getByTestId('notify-on').waitFor();
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it('screenshots of the opt-in, phone and desktop, light and dark', async () => {
    for (const size of ['phone', 'desktop'] as const)
      for (const dark of [false, true]) {
        const app = await openApp(browser, gw.ep, {
          size,
          dark,
          conversation: 'shots',
          scale: size === 'phone' ? 3 : 1,
        });
        const { page } = app;
        await page.getByTestId('input').waitFor({ timeout: budget });
        await page.getByTestId('conversation-menu').click();
        const item = page.getByTestId('notify-on');
        await item.waitFor({ timeout: budget });
        // The item fits the screen whole, its explanation included.
        const box = (await item.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(SIZES[size].width);
        expect(await item.textContent()).toContain('When the agent waits for you');
        await shot(page, `notify-optin-${size}-${dark ? 'dark' : 'light'}`);
        await app.close();
      }
  });
});
