/**
 * What happened to a message, readable by touch, in a real browser on a real gateway (real CLI,
 * mock Messages API), at phone and desktop size: a tap on a message's status (👀 ➡️ ⏳ ⏹) opens
 * its story; a message steered into a running turn keeps saying it was handed over once the agent
 * took it in, after the turn ends and after a reload.
 */
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, shot, useWebGateway } from '../../support/browser-rig.js';
import { send } from '../../support/chat-helpers.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';

const rig = useWebGateway();
let followup: Awaited<ReturnType<typeof startInProcess>>;

beforeAll(async () => {
  followup = await startInProcess({
    agent: agentConfig(rig.mock.url, tempDir('chome')),
    steering: { mode: 'followup' },
  });
});
afterAll(async () => {
  await followup?.stop();
});

/** Opens a message's story the way this device would (a tap on a phone) and returns its lines. */
async function story(message: Locator, touch: boolean): Promise<string[]> {
  const status = message.getByTestId('acks').last();
  if ((await status.getAttribute('aria-expanded')) !== 'true') await (touch ? status.tap() : status.click());
  const lines = message.getByTestId('message-history').last();
  await lines.waitFor();
  return lines.locator('li').allTextContents();
}

describe('message status by touch (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    const touch = size === 'phone';

    it(`at ${size} size: a steered message keeps its story; a tap tells each message's`, async () => {
      const conv = `story-${size}`;
      const app = await openApp(rig.browser, rig.gw.ep, { size, conversation: conv });
      const { page } = app;
      await send(page, `work first [[bash:sleep 3]] tag:s1${size}`);
      const turn = page.getByTestId('turn').last();
      await turn.getByTestId('tool-step').waitFor({ timeout: rig.budget });
      await send(page, `and this too tag:s2${size}`);
      const steered = turn.locator('[data-testid="user-message"][data-steered="true"]');
      await steered.waitFor({ timeout: rig.budget });
      await turn.getByTestId('reply').waitFor({ timeout: rig.budget });

      // Taken in and answered: it still says it was handed to the running turn.
      expect(await steered.textContent()).toContain('Handed to the running turn');
      const steeredStory = await story(steered, touch);
      expect(steeredStory.join('\n')).toMatch(/Received by the gateway[\s\S]*Handed to the running turn/);
      expect(steeredStory.join('\n')).toContain('Taken in by the agent');
      await shot(page, `status-story-${size}`);

      const first = page.locator('[data-testid="user-message"]:not([data-steered])').filter({ hasText: 'work first' });
      expect((await story(first, touch)).join('\n')).toMatch(
        /Received by the gateway[\s\S]*The agent started on it[\s\S]*Answered/,
      );

      // Another device, or a reload, tells the same story.
      await page.reload();
      const again = page.getByTestId('turn').last().locator('[data-steered="true"]');
      await again.waitFor({ timeout: rig.budget });
      expect(await again.textContent()).toContain('Handed to the running turn');
      expect((await story(again, touch)).join('\n')).toMatch(/Handed to the running turn[\s\S]*Taken in/);
      expect(app.problems).toEqual([]);
      await app.close();
    });

    it(`at ${size} size: a tap on ⏳ says it waits in line, on ⏹ that it was stopped`, async () => {
      const app = await openApp(rig.browser, followup.ep, { size, conversation: `wait-${size}` });
      const { page } = app;
      await send(page, `long job [[bash:sleep 6]] tag:q1${size}`);
      await page.getByTestId('tool-step').waitFor({ timeout: rig.budget });
      await send(page, `after it tag:q2${size}`);
      const queued = page.getByTestId('queued-message').filter({ hasText: `tag:q2${size}` });
      await expect.poll(() => queued.getAttribute('data-state'), { timeout: rig.budget }).toBe('queued');
      await expect.poll(() => queued.getByTestId('acks').textContent(), { timeout: rig.budget }).toContain('⏳');
      expect((await story(queued, touch)).join('\n')).toContain('Waits in line');

      await page.getByTestId('stop').click();
      const first = page.getByTestId('user-message').filter({ hasText: `tag:q1${size}` });
      await expect.poll(() => first.getByTestId('acks').textContent(), { timeout: rig.budget }).toContain('⏹');
      expect((await story(first, touch)).join('\n')).toContain('Stopped');
      expect(app.problems).toEqual([]);
      await app.close();
    });
  }
});
