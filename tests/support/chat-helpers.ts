/**
 * Small steps the web app's browser tests share: typing and sending, where the timeline is scrolled, where the
 * keyboard's focus is, a conversation whose agent edited files.
 */
import type { Locator, Page } from 'playwright-core';
import type { WebGateway } from './browser-rig.js';
import { agentEdits } from './review-rig.js';

export async function send(page: Page, text: string): Promise<void> {
  await page.getByTestId('input').fill(text);
  await page.getByTestId('send').click();
}

export interface ScrollState {
  top: number;
  /** How far the end of the timeline is below the visible part, in CSS pixels (0: at the bottom). */
  gap: number;
  height: number;
}

export function scrollState(page: Page): Promise<ScrollState> {
  return page.getByTestId('log').evaluate((el) => ({
    top: el.scrollTop,
    gap: el.scrollHeight - el.scrollTop - el.clientHeight,
    height: el.scrollHeight,
  }));
}

/** Scrolls the timeline by dy CSS pixels (negative: up), as a wheel or a finger would; waits for the scroll event. */
export async function scrollBy(page: Page, dy: number): Promise<void> {
  await page.getByTestId('log').evaluate(
    (el, by) =>
      new Promise<void>((resolve) => {
        el.addEventListener('scroll', () => el.ownerDocument.defaultView!.requestAnimationFrame(() => resolve()), {
          once: true,
        });
        el.scrollTop += by;
      }),
    dy,
  );
}

/** Whether the element lies wholly inside the timeline's visible part. */
export async function inView(page: Page, selector: ReturnType<Page['locator']>): Promise<boolean> {
  const log = await page.getByTestId('log').boundingBox();
  const box = await selector.boundingBox();
  return !!log && !!box && box.y >= log.y - 1 && box.y + box.height <= log.y + log.height + 1;
}

/** The page's own getComputedStyle, typed here (the tests compile without the DOM's types). */
type Styles = { getComputedStyle(el: unknown): { getPropertyValue(p: string): string } };

/** A computed style of the element, as the browser gives it. */
export function style(l: Locator, property: string): Promise<string> {
  return l.evaluate((el, p) => (globalThis as unknown as Styles).getComputedStyle(el).getPropertyValue(p), property);
}

/** The element that has the keyboard focus: its test id, or its tag. */
export function focused(page: Page): Promise<string> {
  return page.evaluate<string>(
    `(() => { const e = document.activeElement;
      return e ? (e.getAttribute('data-testid') || e.tagName.toLowerCase()) : ''; })()`,
  );
}

/**
 * A conversation in project `repo` (with worktrees) whose agent edited a.txt and b.txt and added src/parser.ts in
 * its worktree (tests/projects/review/rig.ts agentEdits), titled when a title is given.
 */
export async function editedConversation(
  rig: Pick<WebGateway, 'gw' | 'mock' | 'budget'>,
  title?: string,
): Promise<{ conv: string; wt: string }> {
  const { gw, mock } = rig;
  const made = await gw.api('POST', '/api/conversations', { project: 'repo' });
  const conv = ((await made.json()) as { id: string }).id;
  const worktreeOf = () => gw.gw.services.store.projects.get(`web:${conv}`, 'repo')!.worktree!;
  agentEdits(mock, worktreeOf);
  const w = gw.watch(conv);
  await w.ready;
  if (title) await gw.api('PATCH', `/api/conversations/${conv}`, { title });
  const m = await gw.post(conv, 'Uppercase gamma, drop two, add a parser. tag:review-edit');
  await w.waitReply(m.messageId, 'reply', Math.max(rig.budget, 60_000));
  mock.setScript(undefined);
  return { conv, wt: worktreeOf() };
}
