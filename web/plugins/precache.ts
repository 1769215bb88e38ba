/**
 * Writes the app shell's file list into the service worker at build time: every emitted file and
 * every file of public/ (manifest, icons) except the worker itself, plus "/" (index.html). The cache name carries a
 * hash of that list,
 * so a new build replaces the old cache.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';

const PLACEHOLDER = /(["'`])__PRECACHE__\1/;

function filesUnder(dir: string, prefix = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? filesUnder(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
    );
}

export function precacheList(publicDir: string): Plugin {
  return {
    name: 'rudder-precache',
    apply: 'build',
    generateBundle(_options, bundle) {
      // highlight.js is left out: it loads on first use (and is then kept by the worker's runtime cache).
      const emitted = Object.values(bundle)
        .filter((f) => !(f.type === 'chunk' && f.isDynamicEntry))
        .map((f) => f.fileName);
      const files = [...emitted, ...filesUnder(publicDir)].filter(
        (f) => f !== 'sw.js' && f !== 'index.html' && !f.endsWith('.map'),
      );
      const shell = ['/', ...files.map((f) => `/${f}`)].sort();
      const version = createHash('sha256').update(shell.join('\n')).digest('hex').slice(0, 12);
      const sw = bundle['sw.js'];
      if (sw?.type !== 'chunk')
        throw new Error('rudder-precache: the service worker entry (sw.js) is missing from the bundle');
      if (!PLACEHOLDER.test(sw.code))
        throw new Error('rudder-precache: the "__PRECACHE__" placeholder is missing from sw.js');
      sw.code = sw.code.replace(PLACEHOLDER, JSON.stringify({ version, files: shell }));
    },
  };
}
