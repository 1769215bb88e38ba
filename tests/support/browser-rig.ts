/**
 * The real browser for the web app's tests: Debian's chromium through playwright-core, a fresh
 * profile per launch, pages opened at 127.0.0.1 with the token in the address as the startup line
 * prints it. Screenshots go to test-artifacts/web/ (not committed) for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type LaunchOptions, type Page } from 'playwright-core';
import { ROOT } from './gateway-rig.js';

export const CHROMIUM = process.env.RUDDER_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = path.join(ROOT, 'test-artifacts/web');
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export const SIZES = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
  small: { width: 360, height: 740 },
} as const;

export async function launch(opts: LaunchOptions = {}): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this).`);
  return chromium.launch({ executablePath: CHROMIUM, ...opts, args: [...FLAGS, ...(opts.args ?? [])] });
}

export interface AppPage {
  page: Page;
  context: BrowserContext;
  /** Script errors and CSP violations seen on the page: a test expects none. */
  problems: string[];
  close(): Promise<void>;
}

/** Opens the app as the startup line's address does (#token=…), at a conversation when given. */
export async function openApp(browser: Browser, ep: { base: string; token: string }, opts: { size?: keyof typeof SIZES; dark?: boolean; conversation?: string; setup?: (context: BrowserContext) => Promise<void> } = {}): Promise<AppPage> {
  const size = SIZES[opts.size ?? 'desktop'];
  const phone = opts.size === 'phone' || opts.size === 'small';
  const context = await browser.newContext({ viewport: size, colorScheme: opts.dark ? 'dark' : 'light', hasTouch: phone, isMobile: phone, deviceScaleFactor: phone ? 2 : 1 });
  await opts.setup?.(context);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
  });
  await page.goto(`${ep.base}/#token=${ep.token}${opts.conversation ? `&c=${encodeURIComponent(opts.conversation)}` : ''}`);
  return { page, context, problems, close: () => context.close() };
}

/** Writes a screenshot to test-artifacts/web/<name>.png and returns its path. */
export async function shot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}
