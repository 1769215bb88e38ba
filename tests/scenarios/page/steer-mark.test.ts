/**
 * A message sent while the agent works says where it stands, in a real browser on a real gateway
 * (real CLI, mock Messages API), at 390×844: sent while the model only writes text, it says at once
 * that it runs next (the CLI takes a message in only at a tool call); when the agent then starts a
 * tool, the mark changes to "handed to the running turn" and the message is taken in at that
 * tool's end. Sent while the model writes a plain answer, it stays "runs next" and runs as the next
 * turn. A reload shows the same mark. The status region says it for a screen reader.
 */
import type { Locator } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from '../../support/axe.js';
import { openApp, useWebGateway } from '../../support/browser-rig.js';
import { send } from '../../support/chat-helpers.js';

const rig = useWebGateway();

const WRITING = 'Let me think about this carefully before I touch anything. ';

beforeAll(() =>
  rig.mock.setScript((req) => {
    if (req.side || req.afterTool) return undefined;
    // Text for 10 s, then a tool call of 4 s: a message sent during the text is taken in after the tool.
    if (req.lastText.includes('tag:then-tool'))
      return {
        kind: 'tool',
        name: 'Bash',
        input: { command: 'sleep 4; echo looked' },
        text: WRITING.repeat(6),
        chunks: 40,
        totalMs: 10_000,
      };
    if (req.lastText.includes('tag:text-only'))
      return { kind: 'text', text: WRITING.repeat(6), chunks: 40, totalMs: 8000 };
    return undefined;
  }),
);

/** A waiting message's mark now ('gone' once it left the waiting messages). */
const markOf = (l: Locator) => l.textContent({ timeout: 500 }).catch(() => 'gone');

describe('the mark of a message sent mid-turn (real browser, real CLI)', () => {
  it('at 390×844: "runs next" at once while the model writes; "handed over" once it starts a tool', async () => {
    const app = await openApp(rig.browser, rig.gw.ep, { size: 'phone', conversation: 'mark-tool' });
    const { page } = app;
    await send(page, 'look into it tag:then-tool');
    await page.getByTestId('streaming').waitFor({ timeout: rig.budget });
    await send(page, 'and check the logs too tag:steer-a');
    const waiting = page.getByTestId('queued-message').filter({ hasText: 'check the logs' });
    const mark = waiting.getByTestId('wait-text');
    await expect.poll(() => markOf(mark), { timeout: rig.budget }).toMatch(/^⏭ Runs next/);
    // No tool has started: the text is still streaming when the mark says so.
    expect(await page.getByTestId('tool-step').count()).toBe(0);
    // It was handed over: it cannot be withdrawn or edited any more.
    expect(await waiting.getByTestId('withdraw').count()).toBe(0);
    expect(await page.locator('[role="status"][data-testid="queue-state"]').textContent()).toMatch(/Runs next/);
    expect(await seriousViolations(page)).toEqual([]);

    // A reload shows the same mark.
    await page.reload();
    await expect
      .poll(() => markOf(page.getByTestId('queued-message').getByTestId('wait-text')), { timeout: rig.budget })
      .toMatch(/^⏭ Runs next/);

    // The agent starts a tool: the message goes in at its end.
    await page.getByTestId('tool-step').waitFor({ timeout: rig.budget });
    await expect
      .poll(() => markOf(page.getByTestId('queued-message').getByTestId('wait-text')), { timeout: rig.budget })
      .toMatch(/^➡️ Handed to the running turn/);
    const steer = page.locator('[data-testid="user-message"][data-steered="true"]');
    await steer.waitFor({ timeout: rig.budget });
    expect(await steer.textContent()).toContain('check the logs');
    expect(app.problems).toEqual([]);
    await app.close();
  }, 180_000);

  it('at 390×844: sent while the model writes a plain answer, it runs next, answered by its own turn', async () => {
    const app = await openApp(rig.browser, rig.gw.ep, { size: 'phone', conversation: 'mark-text' });
    const { page } = app;
    await send(page, 'explain it tag:text-only');
    await page.getByTestId('streaming').waitFor({ timeout: rig.budget });
    await send(page, 'in one line please tag:next-b');
    const mark = page.getByTestId('queued-message').filter({ hasText: 'in one line' }).getByTestId('wait-text');
    await expect.poll(() => markOf(mark), { timeout: rig.budget }).toMatch(/^⏭ Runs next/);
    await page.getByTestId('reply').filter({ hasText: 'ok tag:next-b' }).waitFor({ timeout: rig.budget });
    expect(await page.getByTestId('turn').count()).toBe(2);
    expect(app.problems).toEqual([]);
    await app.close();
  }, 180_000);
});
