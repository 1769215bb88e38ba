/**
 * The keyboard never loses its place, in a real browser on a real gateway (real CLI, mock Messages
 * API), at 390×844 and 1280×800: a waiting message's Edit and Withdraw say which message they act
 * on; Edit puts the focus in its box and Cancel gives it back to Edit; Withdraw and Stop, whose
 * buttons go away, leave the focus in the message box, never on the page's body. axe finds no
 * serious or critical violation with messages waiting.
 */
import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../../support/axe.js';
import { openApp, useWebGateway } from '../../support/browser-rig.js';
import { focused, send } from '../../support/chat-helpers.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig } from '../../support/gateway-rig.js';

const rig = useWebGateway((mock) => ({
  agent: agentConfig(mock.url, tempDir('chome')),
  steering: { mode: 'followup' },
}));

describe('the keyboard keeps its place (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const)
    it(`at ${size} size: Edit, Withdraw and Stop keep the focus; their buttons name their message`, async () => {
      const app = await openApp(rig.browser, rig.gw.ep, { size, conversation: `keys-${size}` });
      const { page } = app;
      await page.getByTestId('input').waitFor({ timeout: rig.budget });
      await send(page, `work for a while [[bash:sleep 20]] tag:k${size}`);
      await page.getByTestId('tool-step').waitFor({ timeout: rig.budget });
      await send(page, 'rename the parser module');
      await send(page, 'then update its tests');
      const first = page.getByTestId('queued-message').filter({ hasText: 'rename the parser' });
      await expect.poll(() => first.getAttribute('data-state'), { timeout: rig.budget }).toBe('queued');

      // Each button says which message it acts on.
      expect.soft(await page.getByRole('button', { name: /^Edit.*rename the parser module/ }).count()).toBe(1);
      expect.soft(await page.getByRole('button', { name: /^Withdraw.*then update its tests/ }).count()).toBe(1);
      expect.soft(await seriousViolations(page)).toEqual([]);

      // Edit: the focus goes into its box; Escape (Cancel) gives it back to Edit.
      await first.getByTestId('edit').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => focused(page), { timeout: rig.budget }).toBe('edit-input');
      await page.keyboard.press('Escape');
      await expect.poll(() => focused(page), { timeout: rig.budget }).toBe('edit');

      // Withdraw: its message leaves the line, the focus goes to the message box.
      await first.getByTestId('withdraw').focus();
      await page.keyboard.press('Enter');
      await first.waitFor({ state: 'detached', timeout: rig.budget });
      await expect.poll(() => focused(page), { timeout: rig.budget }).toBe('input');

      // Stop: the button goes with the turn, the focus goes to the message box.
      await page.getByTestId('stop').focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('stop').waitFor({ state: 'detached', timeout: rig.budget });
      await expect.poll(() => focused(page), { timeout: rig.budget }).toBe('input');
      expect(app.problems).toEqual([]);
      await app.close();
    }, 120_000);
});
