/**
 * The web app's build: Preact (JSX through Vite's own oxc transform), one entry, the service
 * worker as a second entry at the root (unhashed, so its URL stays /sw.js), output in dist/web/
 * which the gateway serves. Nothing at run time is fetched from another host.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precacheList } from './plugins/precache.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: HERE,
  base: '/',
  publicDir: path.join(HERE, 'public'),
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: { alias: { react: 'preact/compat', 'react-dom': 'preact/compat' } },
  build: {
    outDir: path.join(HERE, '../dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // No inline <script> or data: module preloads: the page runs under script-src 'self'.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    rollupOptions: {
      input: { app: path.join(HERE, 'index.html'), sw: path.join(HERE, 'src/sw.ts') },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
  plugins: [precacheList(path.join(HERE, 'public'))],
});
