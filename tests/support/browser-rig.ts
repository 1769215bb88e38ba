/**
 * The real browser for the web app's tests: Debian's chromium through playwright-core, a fresh
 * profile per launch, pages opened at 127.0.0.1 with the token in the address as the startup line
 * prints it. Screenshots go to test-artifacts/web/ (not committed) for a person to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type LaunchOptions, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { tempDir } from './claude-rig.js';
import { agentConfig, ROOT, startInProcess } from './gateway-rig.js';
import { type MockApi, startMockApi } from './mock-anthropic.js';

export const CHROMIUM = process.env.RUDDER_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = path.join(ROOT, 'test-artifacts/web');
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const SIZES = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
  small: { width: 360, height: 740 },
} as const;

export async function launch(opts: LaunchOptions = {}): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this).`);
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
export async function openApp(
  browser: Browser,
  ep: { base: string; token: string },
  opts: {
    size?: keyof typeof SIZES;
    dark?: boolean;
    /** Device pixels per CSS pixel (a phone's default is 2; 3 for a sharp screenshot of a current phone). */
    scale?: number;
    conversation?: string;
    setup?: (context: BrowserContext) => Promise<void>;
    /**
     * 'block' for a test that intercepts the page's requests with context.route: once the service worker controls
     * the page, a request it passes on to the network is no longer the page's and escapes the route.
     */
    serviceWorkers?: 'allow' | 'block';
    /** The device's language and time zone (the browser's own by default). */
    locale?: string;
    timezoneId?: string;
  } = {},
): Promise<AppPage> {
  const size = SIZES[opts.size ?? 'desktop'];
  const phone = opts.size === 'phone' || opts.size === 'small';
  const context = await browser.newContext({
    viewport: size,
    colorScheme: opts.dark ? 'dark' : 'light',
    hasTouch: phone,
    isMobile: phone,
    deviceScaleFactor: opts.scale ?? (phone ? 2 : 1),
    serviceWorkers: opts.serviceWorkers ?? 'allow',
    ...(opts.locale ? { locale: opts.locale } : {}),
    ...(opts.timezoneId ? { timezoneId: opts.timezoneId } : {}),
  });
  await opts.setup?.(context);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
  });
  await page.goto(
    `${ep.base}/#token=${ep.token}${opts.conversation ? `&c=${encodeURIComponent(opts.conversation)}` : ''}`,
  );
  return { page, context, problems, close: () => context.close() };
}

/** Writes a screenshot to test-artifacts/web/<name>.png and returns its path. */
export async function shot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

export interface WebGateway {
  mock: MockApi;
  gw: Awaited<ReturnType<typeof startInProcess>>;
  browser: Browser;
  /** Waits scale with how long this machine took to start all three (a busy machine is slow everywhere). */
  budget: number;
}

/**
 * One real gateway (real CLI, mock Messages API) and one browser for a test file, stopped after it. `config`: the
 * gateway's config for this mock (projects, steering, the agent's environment); by default only the agent.
 */
export function useWebGateway(
  config: (mock: MockApi) => Record<string, unknown> = (mock) => ({ agent: agentConfig(mock.url, tempDir('chome')) }),
): WebGateway {
  const rig = { budget: 20_000 } as WebGateway;
  beforeAll(async () => {
    const t0 = Date.now();
    rig.mock = await startMockApi();
    rig.gw = await startInProcess(config(rig.mock));
    rig.browser = await launch();
    rig.budget = Math.min(60_000, Math.max(20_000, (Date.now() - t0) * 10));
  });
  afterAll(async () => {
    await rig.browser?.close();
    await rig.gw?.stop();
    await rig.mock?.close();
  });
  return rig;
}

/** The four ways a scene is looked at: 390×844 (touch, 3× for a sharp screenshot) and 1280×800, light and dark. */
export const LOOKS = [
  { size: 'phone', dark: false },
  { size: 'phone', dark: true },
  { size: 'desktop', dark: false },
  { size: 'desktop', dark: true },
] as const;
export type Look = (typeof LOOKS)[number];

/** "phone-dark", for test and screenshot names. */
export const lookName = (look: Look) => `${look.size}-${look.dark ? 'dark' : 'light'}`;

/** Opens the app at a conversation as the look shows it. */
export function openLook(
  browser: Browser,
  ep: { base: string; token: string },
  look: Look,
  conversation: string,
): Promise<AppPage> {
  return openApp(browser, ep, { size: look.size, dark: look.dark, conversation, scale: look.size === 'phone' ? 3 : 1 });
}
