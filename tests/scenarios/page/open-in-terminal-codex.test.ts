/**
 * The ⋯ menu's "Open in a terminal" on a Codex conversation, in a real browser at 390×844 and 1280×800 on a real
 * gateway (the pinned codex binary against the mock Responses API): the same `rudder attach <id>` to copy, whole on
 * the screen, and a note that says what follows for Codex (its messages wait until the thread is handed back).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../support/axe.js';
import { launch, openApp, SIZES, shot } from '../../support/browser-rig.js';
import { useCodexGateway } from '../../support/codex-gateway.js';
import type { startInProcess } from '../../support/gateway-rig.js';

let gw: Awaited<ReturnType<typeof startInProcess>>;
let budget = 60_000;
let browser: Awaited<ReturnType<typeof launch>>;
useCodexGateway((s) => void ({ gw, budget } = s));
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('Open in a terminal on a Codex conversation (real browser, real codex)', () => {
  for (const size of ['phone', 'desktop'] as const)
    it(`at ${size} size: shows the rudder attach command and what follows for Codex`, async () => {
      const conv = `cx-terminal-${size}`;
      const w = gw.watch(conv);
      await w.ready;
      const m = await gw.post(conv, 'hello tag:cx-term');
      await w.waitReply(m.messageId, 'reply', budget);
      const app = await openApp(browser, gw.ep, { size, conversation: conv });
      const { page } = app;
      const tap = (testid: string) => page.getByTestId(testid)[size === 'phone' ? 'tap' : 'click']();
      await page.getByTestId('reply').waitFor({ timeout: budget });

      await tap('conversation-menu');
      await tap('open-in-terminal');
      const command = page.getByTestId('terminal-command');
      await command.waitFor({ timeout: budget });
      expect(await command.textContent()).toBe(`rudder attach ${conv}`);
      const box = await command.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= SIZES[size].width).toBe(true);
      expect(await page.getByTestId('menu').textContent()).toContain(
        'Codex: the messages sent here wait until you hand the thread back there.',
      );
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, `open-in-terminal-codex-${size}`);
      expect(app.problems).toEqual([]);
      await app.close();
    });
});
