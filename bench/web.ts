/**
 * The web app: how much a phone downloads (gzip, the lazily loaded highlighter apart), how soon a
 * text delta from the CLI shows on the page (real CLI, mock Messages API, chromium), and how long a
 * 2,000-message history takes to show (the gateway with the in-process fake agent, which seeds it
 * quickly; the figure is the page's own).
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BusEvent } from '../src/gateway/bus.js';
import { APP_DIR } from '../src/http/static.js';
import { launch, openApp } from '../tests/support/browser-rig.js';
import { tempDir } from '../tests/support/claude-rig.js';
import { fakeSessionFactory } from '../tests/support/fake-agent.js';
import { agentConfig, startInProcess } from '../tests/support/gateway-rig.js';
import { startMockApi } from '../tests/support/mock-anthropic.js';
import type { SectionBody } from './report.js';
import { ms, summarize } from './stats.js';

const SIZE_TARGET_KB = 150;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

/**
 * The files the first load fetches (index.html and what it links, the worker, the manifest) versus chunks loaded later.
 */
function appSize(): { initial: Array<[string, number, number]>; lazy: Array<[string, number, number]>; icons: number } {
  const html = fs.readFileSync(path.join(APP_DIR, 'index.html'), 'utf8');
  const linked = new Set([...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!));
  const row = (rel: string): [string, number, number] => {
    const body = fs.readFileSync(path.join(APP_DIR, rel));
    return [rel, body.length, gzipSync(body, { level: 9 }).length];
  };
  const assets = fs.readdirSync(path.join(APP_DIR, 'assets')).map((f) => `assets/${f}`);
  const icons = fs
    .readdirSync(path.join(APP_DIR, 'icons'))
    .reduce((n, f) => n + fs.statSync(path.join(APP_DIR, 'icons', f)).size, 0);
  return {
    initial: ['index.html', 'sw.js', 'manifest.webmanifest', ...assets.filter((a) => linked.has(a))].map(row),
    lazy: assets.filter((a) => !linked.has(a)).map(row),
    icons,
  };
}

/** performance.timeOrigin + now(): epoch milliseconds with sub-ms precision, the same clock in Node and in the page. */
const INIT_OBSERVER = `
  window.__seen = {};
  new MutationObserver(() => {
    const now = performance.timeOrigin + performance.now();
    const el = document.querySelector('[data-testid="streaming"]');
    if (!el) return;
    for (const m of el.textContent.matchAll(/w(\\d{4})/g)) if (!(m[1] in window.__seen)) window.__seen[m[1]] = now;
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

async function deltaToDom(quick: boolean): Promise<{ latencies: number[]; turns: number }> {
  const tokens = quick ? 60 : 150;
  const turns = quick ? 2 : 4;
  const mock = await startMockApi();
  // Each chunk is one token "wNNNN " (6 characters), streamed 25 ms apart.
  let base = 0;
  mock.setScript((req) => {
    if (req.side || !req.lastText.includes('tag:stream')) return undefined;
    const text = Array.from({ length: tokens }, (_, i) => `w${String(base + i).padStart(4, '0')} `).join('');
    base += tokens;
    return { kind: 'text', text, chunks: tokens, totalMs: tokens * 25 };
  });
  const gw = await startInProcess({ agent: agentConfig(mock.url, tempDir('chome')) });
  const busAt = new Map<string, number>();
  const unsubscribe = gw.gw.services.bus.subscribeAll((e: BusEvent) => {
    if (e.type !== 'text') return;
    const now = performance.timeOrigin + performance.now();
    for (const m of String(e.data.delta).matchAll(/w(\d{4})/g)) if (!busAt.has(m[1]!)) busAt.set(m[1]!, now);
  });
  const browser = await launch();
  try {
    const app = await openApp(browser, gw.ep, { conversation: 'stream' });
    await app.page.addInitScript(INIT_OBSERVER);
    await app.page.reload();
    await app.page.getByTestId('input').waitFor();
    for (let t = 0; t < turns; t++) {
      await app.page.getByTestId('input').fill(`stream please tag:stream ${t}`);
      await app.page.getByTestId('send').click();
      await app.page.getByTestId('reply').nth(t).waitFor({ timeout: 60_000 });
    }
    const seen = (await app.page.evaluate('window.__seen')) as Record<string, number>;
    await app.close();
    const latencies = [...busAt.entries()].filter(([k]) => seen[k] !== undefined).map(([k, at]) => seen[k]! - at);
    return { latencies, turns };
  } finally {
    unsubscribe();
    await browser.close();
    await gw.stop();
    await mock.close();
  }
}

async function longHistory(
  quick: boolean,
): Promise<{ count: number; firstPageMs: number; allMs: number; pages: number }> {
  const count = quick ? 500 : 2000;
  const gw = await startInProcess(
    { agent: { cwd: tempDir('bench-cwd') } },
    {
      sessionFactory: fakeSessionFactory({
        turnMs: 0,
        reply: (texts) => `**answer** to ${texts.length} message(s): \`${texts[0]?.slice(-12)}\``,
      }),
    },
  );
  const browser = await launch();
  try {
    const w = gw.watch('long');
    await w.ready;
    for (let i = 0; i < count; i++) {
      const m = await gw.post('long', `message ${i}: a line the person wrote`);
      await w.waitReply(m.messageId);
    }
    const app = await openApp(browser, gw.ep, { conversation: 'long' });
    const { page } = app;
    // From the page starting to load to the newest page of history on screen.
    await page.locator('[data-testid="reply"]').nth(99).waitFor({ timeout: 60_000 });
    const firstPageMs = (await page.evaluate('performance.now()')) as number;
    // Then scrolling up until every message is there.
    const t0 = Date.now();
    let pages = 1;
    const bubbles = page.locator('[data-testid="user-message"]');
    while ((await bubbles.count()) < count) {
      const before = await bubbles.count();
      await page.getByTestId('log').evaluate((el) => (el.scrollTop = 0));
      const deadline = Date.now() + 60_000;
      while ((await bubbles.count()) <= before) {
        if (Date.now() > deadline)
          throw new Error(`older history did not load (${before} of ${count} messages on screen)`);
        await new Promise((r) => setTimeout(r, 20));
      }
      pages++;
    }
    const allMs = Date.now() - t0;
    await app.close();
    return { count, firstPageMs, allMs, pages };
  } finally {
    await browser.close();
    await gw.stop();
  }
}

export async function benchWeb(quick: boolean): Promise<SectionBody> {
  const size = appSize();
  const initialGzip = size.initial.reduce((n, r) => n + r[2], 0);
  const { latencies, turns } = await deltaToDom(quick);
  const lat = summarize(latencies);
  const history = await longHistory(quick);
  return {
    tables: [
      {
        caption: 'What a first load downloads (gzip -9); the highlighter loads when a reply first shows code:',
        head: ['file', 'size', 'gzip'],
        rows: [
          ...size.initial.map(([f, raw, gz]) => [f, kb(raw), kb(gz)]),
          ['**first load, total**', kb(size.initial.reduce((n, r) => n + r[1], 0)), kb(initialGzip)],
          ...size.lazy.map(([f, raw, gz]) => [`${f} (lazy)`, kb(raw), kb(gz)]),
          ['icons (PNG and SVG, fetched by the install prompt and the worker)', kb(size.icons), ''],
        ],
      },
      {
        caption:
          `A text delta from the CLI (the gateway publishing it) to the page's DOM, ${lat.n} deltas ` +
          `over ${turns} streamed replies:`,
        head: ['p50', 'p95', 'p99', 'min', 'max'],
        rows: [[ms(lat.p50), ms(lat.p95), ms(lat.p99), ms(lat.min), ms(lat.max)]],
      },
      {
        caption: `A conversation of ${history.count} messages, each with its turn and reply:`,
        head: ['measure', 'time'],
        rows: [
          ['page load to the newest 100 messages on screen', ms(history.firstPageMs)],
          [`scrolling up until all ${history.count} are on screen (${history.pages} pages of 100)`, ms(history.allMs)],
        ],
      },
    ],
    checks: [
      {
        target: `web app under ${SIZE_TARGET_KB} KB gzip on first load (highlighter apart)`,
        measured: kb(initialGzip),
        pass: initialGzip <= SIZE_TARGET_KB * 1024,
      },
      {
        target: 'text delta from the CLI to the DOM (reported)',
        measured: `p50 ${ms(lat.p50)}, p99 ${ms(lat.p99)}`,
        pass: true,
      },
      {
        target: `render a ${history.count}-message history (reported)`,
        measured: `${ms(history.firstPageMs)} to the newest page, ${ms(history.allMs)} to all of it`,
        pass: true,
      },
    ],
    notes: [
      "The delta figure starts when the gateway publishes the text event it parsed from the CLI's stdout and " +
        'ends when a MutationObserver in the page sees the token in the streaming block; both clocks are ' +
        'performance.timeOrigin + now() on one machine.',
      'The history is seeded through the HTTP API with the in-process fake agent (one turn and reply per ' +
        'message); the page fetches it 100 messages at a time, each page with its turns and replies.',
    ],
    data: { size, latencies: lat, history },
  };
}
