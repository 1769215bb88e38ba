/**
 * The installable app and its connection, in a real browser on a real gateway (real CLI, mock
 * Messages API): the manifest and icons, the service worker's shell that says it cannot reach the
 * gateway when offline, and a reconnect after the network drops that shows what was missed, once.
 */
import { describe, expect, it } from 'vitest';
import { launch, openApp, shot, useWebGateway } from '../../support/browser-rig.js';
import { type DropProxy, startDropProxy } from '../../support/drop-proxy.js';

const rig = useWebGateway();

describe('installable app and connection (real browser, real CLI)', () => {
  it('links a web app manifest whose icons are served, and runs a service worker for the shell', async () => {
    const app = await openApp(rig.browser, rig.gw.ep, { size: 'phone' });
    const { page } = app;
    await page.getByTestId('input').waitFor({ timeout: rig.budget });
    expect(await page.locator('link[rel="manifest"]').getAttribute('href')).toBe('/manifest.webmanifest');
    const res = await fetch(`${rig.gw.ep.base}/manifest.webmanifest`);
    expect(res.headers.get('content-type')).toBe('application/manifest+json; charset=utf-8');
    const manifest = (await res.json()) as {
      name: string;
      start_url: string;
      display: string;
      icons: Array<{ src: string; sizes: string; type: string }>;
    };
    expect(manifest).toMatchObject({ name: 'Rudder', start_url: '/', display: 'standalone' });
    expect(manifest.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of manifest.icons) {
      const r = await fetch(rig.gw.ep.base + icon.src);
      expect([icon.src, r.status, r.headers.get('content-type')]).toEqual([icon.src, 200, icon.type]);
    }
    const scope = await page.evaluate<string>('navigator.serviceWorker.ready.then((r) => r.scope)');
    expect(scope).toBe(`${rig.gw.ep.base}/`);
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it('offline, the installed shell still opens and says it cannot reach the gateway', async () => {
    const app = await openApp(rig.browser, rig.gw.ep, { size: 'phone' });
    const { page, context } = app;
    await page.getByTestId('input').waitFor({ timeout: rig.budget });
    await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
    // The worker has cached the shell; from now on no request reaches the gateway.
    await context.setOffline(true);
    await page.reload();
    const banner = page.getByTestId('connection');
    await banner.waitFor({ timeout: rig.budget });
    expect(await banner.textContent()).toContain('Cannot reach the gateway');
    expect(await page.getByTestId('input').isVisible()).toBe(true);
    await shot(page, 'offline-phone');
    // Back online, it connects again by itself.
    await context.setOffline(false);
    await banner.waitFor({ state: 'detached', timeout: rig.budget });
    await app.close();
  });

  it('after the network drops, says so, reconnects with Last-Event-ID and shows what it missed, once', async () => {
    const proxy: DropProxy = await startDropProxy();
    const viaProxy = await launch({ args: [`--proxy-server=${proxy.url}`, '--proxy-bypass-list=<-loopback>'] });
    try {
      const app = await openApp(viaProxy, rig.gw.ep, { conversation: 'drop' });
      const { page } = app;
      await page.getByTestId('input').waitFor({ timeout: rig.budget });
      await page.getByTestId('input').fill('before the drop tag:d1');
      await page.getByTestId('send').click();
      await page.getByTestId('reply').filter({ hasText: 'ok tag:d1' }).waitFor({ timeout: rig.budget });
      expect(proxy.lastEventIds).toHaveLength(1);
      const seenBefore = rig.gw.gw.services.store.lastEventSeq('web:drop');

      proxy.drop();
      const banner = page.getByTestId('connection');
      await banner.waitFor({ timeout: rig.budget });
      expect(await banner.textContent()).toMatch(/Connection lost|Cannot reach the gateway/);
      await shot(page, 'reconnecting-desktop');
      // Meanwhile another device talks to the agent: its message, the tool call and the reply are missed here.
      const w = rig.gw.watch('drop');
      await w.ready;
      const m = await rig.gw.post('drop', 'while you were away [[bash:echo missed]] tag:d2');
      await w.waitReply(m.messageId, 'reply', rig.budget);

      proxy.resume();
      // The next retry comes within the client's longest back-off (10 s).
      await banner.waitFor({ state: 'detached', timeout: rig.budget + 10_000 });
      // The stream came back from where it was: the events it missed are replayed, not fetched anew.
      const resumedFrom = Number(proxy.lastEventIds.at(-1));
      expect(resumedFrom).toBeGreaterThan(0);
      expect(resumedFrom).toBeLessThanOrEqual(seenBefore);
      const missedTurn = page
        .getByTestId('turn')
        .filter({ has: page.getByTestId('tool-step').filter({ hasText: 'echo missed' }) });
      const missed = missedTurn.getByTestId('reply');
      await missed.waitFor({ timeout: rig.budget });
      await page
        .getByTestId('user-message')
        .filter({ hasText: 'while you were away' })
        .waitFor({ timeout: rig.budget });
      expect(await page.getByTestId('tool-step').filter({ hasText: 'echo missed' }).count()).toBe(1);
      // A sentinel after the replay: everything before it has been drawn, and drawn once.
      const s = await rig.gw.post('drop', 'sentinel tag:d3');
      await page.getByTestId('reply').filter({ hasText: 'ok tag:d3' }).waitFor({ timeout: rig.budget });
      expect(await missedTurn.count()).toBe(1);
      expect(await missed.count()).toBe(1);
      expect((await missed.textContent())?.trim()).toBe('done ok');
      expect(await page.getByTestId('user-message').filter({ hasText: 'while you were away' }).count()).toBe(1);
      expect(await page.getByTestId('turn').count()).toBe(3);
      expect(s.disposition).toBe('turn');
      expect(app.problems).toEqual([]);
      await app.close();
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });
});
