/**
 * The ⋯ menu's "Open in a terminal", in a real browser at phone size (390×844) and 1280×800 on a real gateway (real
 * CLI, mock Messages API): it shows the command that opens the conversation's session in a terminal,
 * `rudder attach <id>`, whole on the screen, and Copy puts exactly that on the clipboard.
 */
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../support/axe.js';
import { openApp, SIZES, shot, useWebGateway } from '../../support/browser-rig.js';

const rig = useWebGateway();

describe('Open in a terminal (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const)
    it(`at ${size} size: shows the rudder attach command to copy`, async () => {
      const conv = `terminal-menu-${size}`;
      const w = rig.gw.watch(conv);
      await w.ready;
      const m = await rig.gw.post(conv, 'hello tag:term-menu');
      await w.waitReply(m.messageId, 'reply', rig.budget);
      const app = await openApp(rig.browser, rig.gw.ep, {
        size,
        conversation: conv,
        setup: (context) => context.grantPermissions(['clipboard-read', 'clipboard-write']),
      });
      const { page } = app;
      const tap = (testid: string) => page.getByTestId(testid)[size === 'phone' ? 'tap' : 'click']();
      await page.getByTestId('reply').waitFor({ timeout: rig.budget });

      await tap('conversation-menu');
      const item = page.getByTestId('open-in-terminal');
      await item.waitFor({ timeout: rig.budget });
      await shot(page, `open-in-terminal-${size}-menu`);
      await tap('open-in-terminal');
      expect(await item.getAttribute('aria-expanded')).toBe('true');
      const command = page.getByTestId('terminal-command');
      expect(await command.textContent()).toBe(`rudder attach ${conv}`);
      // Whole on the screen: nothing cut at its edges.
      const box = await command.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= SIZES[size].width).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, `open-in-terminal-${size}`);

      await tap('copy-terminal-command');
      await expect.poll(() => page.getByTestId('copy-terminal-command').textContent()).toBe('Copied');
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(`rudder attach ${conv}`);
      await shot(page, `open-in-terminal-${size}-copied`);
      expect(app.problems).toEqual([]);
      await app.close();
    });
});
