/**
 * The ⋯ menu's "Open in a terminal", in a real browser at phone size (390×844) on a real gateway (real CLI, mock
 * Messages API): it shows the command that opens the conversation's session in a terminal, `rudder attach <id>`,
 * whole on the screen, and Copy puts exactly that on the clipboard.
 */
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../support/axe.js';
import { openApp, shot, useWebGateway } from '../../support/browser-rig.js';

const rig = useWebGateway();

describe('Open in a terminal (real browser, real CLI)', () => {
  it('at phone size: shows the rudder attach command to copy', async () => {
    const conv = 'terminal-menu';
    const w = rig.gw.watch(conv);
    await w.ready;
    const m = await rig.gw.post(conv, 'hello tag:term-menu');
    await w.waitReply(m.messageId, 'reply', rig.budget);
    const app = await openApp(rig.browser, rig.gw.ep, {
      size: 'phone',
      conversation: conv,
      setup: (context) => context.grantPermissions(['clipboard-read', 'clipboard-write']),
    });
    const { page } = app;
    await page.getByTestId('reply').waitFor({ timeout: rig.budget });

    await page.getByTestId('conversation-menu').tap();
    const item = page.getByTestId('open-in-terminal');
    await item.tap();
    expect(await item.getAttribute('aria-expanded')).toBe('true');
    const command = page.getByTestId('terminal-command');
    expect(await command.textContent()).toBe(`rudder attach ${conv}`);
    // Whole on a phone's screen: nothing cut at its edges.
    const box = await command.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'open-in-terminal-phone');

    await page.getByTestId('copy-terminal-command').tap();
    await expect.poll(() => page.getByTestId('copy-terminal-command').textContent()).toBe('Copied');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(`rudder attach ${conv}`);
    expect(app.problems).toEqual([]);
    await app.close();
  });
});
