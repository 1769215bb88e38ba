/**
 * What a turn cost, on the page: the "Done" line says the turn's tokens, its cost and its time, and a
 * tap (or click) opens the details, in a real browser on a real gateway (real CLI, mock Messages API)
 * at phone and desktop size, light and dark. The figures are the ones the gateway stored.
 */
import { describe, expect, it } from 'vitest';
import { openApp, shot, useWebGateway } from '../../support/browser-rig.js';
import { send } from '../../support/chat-helpers.js';

const rig = useWebGateway();
const money = (v: number) => `$${v < 0.01 ? v.toFixed(4) : v.toFixed(2)}`;

describe('a turn’s cost on the page (real browser, real CLI)', () => {
  for (const size of ['phone', 'desktop'] as const) {
    it(`at ${size} size: the Done line shows tokens, cost and time; a tap opens the details`, async () => {
      const conv = `cost-${size}`;
      const app = await openApp(rig.browser, rig.gw.ep, { size, conversation: conv, scale: size === 'phone' ? 3 : 1 });
      const { page } = app;
      await send(page, `what does it cost [[usage:12000/3400/800/200]] [[bash:echo counted]] tag:c${size}`);
      const turn = page.getByTestId('turn').last();
      const status = turn.getByTestId('turn-status');
      await status.getByTestId('turn-usage-line').waitFor({ timeout: rig.budget });
      const store = rig.gw.gw.services.store;
      const row = store.turn((await turn.getAttribute('data-turn-id'))!)!;
      // Two model calls (the tool call, then the answer after its result): the turn's tokens are what the mock
      // reported for both (the usage asked for, then its default for the second).
      const calls = rig.mock.mainRequests().filter((r) => r.historyText.includes(`tag:c${size}`) && r.usage);
      expect(calls.map((r) => r.usage)).toEqual([
        { input: 12_000, output: 3400, cacheRead: 800, cacheWrite: 200 },
        { input: 12, output: 7, cacheRead: 0, cacheWrite: 0 },
      ]);
      expect(row.cost).toMatchObject({
        inputTokens: 12_012,
        outputTokens: 3407,
        cacheReadTokens: 800,
        cacheCreationTokens: 200,
      });
      const text = (await status.textContent())!;
      expect(text).toMatch(/^Done · [\d.]+ (s|min) · 1 tool call · 16k tokens · \$\d/);
      expect(text).toContain(money(row.cost!.costUsd!));

      await (size === 'phone' ? status.tap() : status.click());
      const details = turn.getByTestId('turn-usage');
      await details.waitFor();
      const shown = (await details.textContent())!;
      expect(shown).toContain('12,012 in · 3,407 out · 800 cache read · 200 cache write');
      expect(await details.getByTestId('turn-cost').textContent()).toBe(money(row.cost!.costUsd!));
      expect(shown).toContain(Object.keys(row.cost!.models!)[0]!);
      expect(shown).toMatch(/Agent time[\d.]+ s/);
      // Nothing is cut off: the whole line is inside the timeline's width.
      const [box, log] = [await status.boundingBox(), await page.getByTestId('log').boundingBox()];
      expect(box!.x + box!.width).toBeLessThanOrEqual(log!.x + log!.width + 1);
      await shot(page, `cost-done-${size}-light`);
      expect(app.problems).toEqual([]);
      await app.close();

      // The same turn after a reload, in the dark (the history carries the figures).
      const dark = await openApp(rig.browser, rig.gw.ep, { size, conversation: conv, dark: true, scale: 2 });
      const again = dark.page.getByTestId('turn').last().getByTestId('turn-status');
      await again.getByTestId('turn-usage-line').waitFor({ timeout: rig.budget });
      expect(await again.textContent()).toBe(text);
      await (size === 'phone' ? again.tap() : again.click());
      await dark.page.getByTestId('turn-usage').waitFor();
      await shot(dark.page, `cost-done-${size}-dark`);
      expect(dark.problems).toEqual([]);
      await dark.close();
    });
  }
});
