/** Small steps the web app's browser tests share: typing and sending, and where the timeline is scrolled. */
import type { Locator, Page } from 'playwright-core';

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
