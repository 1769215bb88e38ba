/**
 * Writes the app shell's file list into the service worker at build time: every emitted file
 * except the worker itself, plus "/" (index.html). The cache name carries a hash of that list,
 * so a new build replaces the old cache.
 */
import { createHash } from 'node:crypto';
import type { Plugin } from 'vite';

const PLACEHOLDER = /(["'`])__PRECACHE__\1/;

export function precacheList(): Plugin {
  return {
    name: 'rudder-precache',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files = Object.keys(bundle).filter((f) => f !== 'sw.js' && f !== 'index.html' && !f.endsWith('.map'));
      const shell = ['/', ...files.map((f) => `/${f}`)].sort();
      const version = createHash('sha256').update(shell.join('\n')).digest('hex').slice(0, 12);
      const sw = bundle['sw.js'];
      if (!sw || sw.type !== 'chunk') throw new Error('rudder-precache: the service worker entry (sw.js) is missing from the bundle');
      if (!PLACEHOLDER.test(sw.code)) throw new Error('rudder-precache: the "__PRECACHE__" placeholder is missing from sw.js');
      sw.code = sw.code.replace(PLACEHOLDER, JSON.stringify({ version, files: shell }));
    },
  };
}
