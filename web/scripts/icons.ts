/**
 * Renders the PNG icons (home screen, install prompt, apple-touch) from the SVGs in public/icons
 * with the system chromium. Run after changing an SVG: `npx tsx web/scripts/icons.ts`; the PNGs
 * are committed, so a build needs no browser.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '../public/icons');
const OUT: Array<[source: string, file: string, size: number]> = [
  ['icon.svg', 'icon-192.png', 192],
  ['icon.svg', 'icon-512.png', 512],
  ['icon-maskable.svg', 'icon-maskable-512.png', 512],
  ['icon-maskable.svg', 'apple-touch-icon.png', 180],
];

const browser = await chromium.launch({
  executablePath: process.env.RUDDER_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  for (const [source, file, size] of OUT) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const svg = fs.readFileSync(path.join(DIR, source), 'utf8');
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`,
    );
    await page.screenshot({ path: path.join(DIR, file), omitBackground: true });
    await page.close();
  }
} finally {
  await browser.close();
}
