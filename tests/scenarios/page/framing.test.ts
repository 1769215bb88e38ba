/**
 * The web app cannot be framed by another page (no clickjacking of Approve or Stop), and runs
 * under its strict Content-Security-Policy without tripping it. Real browser, real gateway.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openApp, useWebGateway } from '../../support/browser-rig.js';

const rig = useWebGateway();

describe('framing and CSP (real browser)', () => {
  it('serves the app with a strict policy, and it loads and answers without a violation', async () => {
    const res = await fetch(`${rig.gw.ep.base}/`);
    const csp = String(res.headers.get('content-security-policy'));
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|nonce-/);
    const app = await openApp(rig.browser, rig.gw.ep);
    await app.page.getByTestId('input').waitFor({ timeout: rig.budget });
    await app.page.getByTestId('input').fill('hello tag:csp');
    await app.page.getByTestId('send').click();
    await app.page.getByTestId('reply').filter({ hasText: 'ok tag:csp' }).waitFor({ timeout: rig.budget });
    expect(app.problems).toEqual([]);
    await app.close();
  });

  it('cannot be framed by another page', async () => {
    // Another local page, on another port, frames the logged-in app.
    const attacker = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><iframe id="f" src="${rig.gw.ep.base}/" width="800" height="600"></iframe>`);
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    const app = await openApp(rig.browser, rig.gw.ep);
    try {
      // The app has stored the token where a frame of the same origin would find it.
      await app.page.getByTestId('input').waitFor({ timeout: rig.budget });
      const blocked = app.page.waitForEvent('console', {
        predicate: (m) => /frame-ancestors/.test(m.text()),
        timeout: rig.budget,
      });
      await app.page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      await blocked;
      const frame = app.page.frames().find((f) => f !== app.page.mainFrame())!;
      expect(await frame.locator('[data-testid="stop"]').count()).toBe(0);
      expect(await frame.locator('[data-testid="send"]').count()).toBe(0);
      expect(await frame.locator('[data-testid="permission-allow"]').count()).toBe(0);
    } finally {
      await app.close();
      await new Promise((r) => attacker.close(r));
    }
  });
});
