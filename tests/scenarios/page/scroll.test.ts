/**
 * Scrolling like a chat app, in a real browser on a real gateway (real CLI, mock Messages API), at
 * phone and desktop size: the view keeps to the bottom while the person is there, also when a
 * long reply arrives in one block; it never moves while they read above, where a "jump to latest"
 * button counts what came below; and their own sent message always comes into view.
 */
import { describe, expect, it } from 'vitest';
import { openApp, shot, useWebGateway } from '../../support/browser-rig.js';
import { inView, scrollBy, scrollState, send } from '../../support/chat-helpers.js';

const rig = useWebGateway();

/** A reply of many lines that the mock sends in one piece. */
const LONG = Array.from({ length: 70 }, (_, i) => `Line ${i + 1} of a long answer that arrives in one block.`).join(
  '\n\n',
);
/** The same with a code block, which grows again when it is highlighted after it is drawn. */
const CODE = `${LONG}\n\n\`\`\`ts\n${Array.from({ length: 60 }, (_, i) => `const v${i} = ${i};`).join('\n')}\n\`\`\``;

describe('scrolling (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    it(`at ${size} size: follows a reply in one block, stays put above, counts what is new, shows mine`, async () => {
      rig.mock.setScript((req) =>
        req.side
          ? undefined
          : req.lastText.includes('tag:long')
            ? { kind: 'text', text: LONG }
            : req.lastText.includes('tag:code')
              ? { kind: 'text', text: CODE }
              : undefined,
      );
      const conv = `scroll-${size}`;
      const w = rig.gw.watch(conv);
      await w.ready;
      for (let i = 0; i < 2; i++) {
        const m = await rig.gw.post(conv, `seed ${i} tag:long`);
        await w.waitReply(m.messageId, 'reply', rig.budget);
      }
      const app = await openApp(rig.browser, rig.gw.ep, { size, conversation: conv });
      const { page } = app;
      await expect.poll(() => page.getByTestId('reply').count(), { timeout: rig.budget }).toBe(2);
      // It opens at the end.
      await expect.poll(async () => (await scrollState(page)).gap, { timeout: rig.budget }).toBeLessThanOrEqual(1);

      // At the bottom, each long reply that arrives in one block is followed to its end (the highlighting too).
      for (let i = 0; i < 3; i++) {
        await send(page, `show me ${i} tag:${i % 2 ? 'long' : 'code'}`);
        await expect.poll(() => page.getByTestId('reply').count(), { timeout: rig.budget }).toBe(3 + i);
        await expect.poll(async () => (await scrollState(page)).gap, { timeout: rig.budget }).toBeLessThanOrEqual(1);
      }
      // A reply to another device's message too.
      const a = await rig.gw.post(conv, 'from another device tag:long');
      await w.waitReply(a.messageId, 'reply', rig.budget);
      await expect.poll(() => page.getByTestId('reply').count(), { timeout: rig.budget }).toBe(6);
      await page
        .getByTestId('user-message')
        .filter({ hasText: 'from another device' })
        .waitFor({ timeout: rig.budget });
      await expect.poll(async () => (await scrollState(page)).gap, { timeout: rig.budget }).toBeLessThanOrEqual(1);
      expect(await page.getByTestId('jump-latest').count()).toBe(0);

      // Reading above: nothing pulls the view down, and the button counts what came below.
      await scrollBy(page, -900);
      const reading = await scrollState(page);
      expect(reading.gap).toBeGreaterThan(800);
      await page.getByTestId('jump-latest').waitFor({ timeout: rig.budget });
      const b = await rig.gw.post(conv, 'another one tag:long');
      await w.waitReply(b.messageId, 'reply', rig.budget);
      await expect.poll(() => page.getByTestId('reply').count(), { timeout: rig.budget }).toBe(7);
      // The new message and its reply: two new items below.
      await expect.poll(() => page.getByTestId('jump-count').textContent(), { timeout: rig.budget }).toBe('2');
      const after = await scrollState(page);
      expect(after.top).toBe(reading.top);
      expect(after.gap).toBeGreaterThan(reading.gap);
      await shot(page, `jump-latest-${size}`);

      // The button brings them to the end and goes.
      await page.getByTestId('jump-latest').click();
      await expect.poll(async () => (await scrollState(page)).gap, { timeout: rig.budget }).toBeLessThanOrEqual(1);
      await page.getByTestId('jump-latest').waitFor({ state: 'detached', timeout: rig.budget });

      // Slightly above the end, a message they send still comes into view, and so does its answer.
      await scrollBy(page, -300);
      expect((await scrollState(page)).gap).toBeGreaterThan(250);
      await send(page, 'my own words tag:mine');
      const mine = page.getByTestId('user-message').filter({ hasText: 'my own words' });
      await mine.waitFor({ timeout: rig.budget });
      await expect.poll(() => inView(page, mine), { timeout: rig.budget }).toBe(true);
      await page.getByTestId('reply').filter({ hasText: 'ok tag:mine' }).waitFor({ timeout: rig.budget });
      await expect.poll(async () => (await scrollState(page)).gap, { timeout: rig.budget }).toBeLessThanOrEqual(1);
      expect(app.problems).toEqual([]);
      await app.close();
      rig.mock.setScript(undefined);
    });
  }
});
