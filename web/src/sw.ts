/**
 * The service worker: keeps the app shell (index.html, its scripts and styles, the manifest and
 * icons) so the app opens from the home screen, and says it cannot reach the gateway when offline
 * instead of showing a blank page. The API is never cached: it is live and needs the token.
 * The shell list and its version are written in at build time (web/plugins/precache.ts).
 */
declare const self: ServiceWorkerGlobalScope;

const SHELL = '__PRECACHE__' as unknown as { version: string; files: string[] };
const CACHE = `rudder-shell-${SHELL.version}`;

self.addEventListener('install', (e) => {
  e.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll(SHELL.files.map((f) => new Request(f, { cache: 'reload' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(keys.filter((k) => k.startsWith('rudder-shell-') && k !== CACHE).map((k) => caches.delete(k))),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (e) => {
  const req = e.request;
  const url = new URL(req.url);
  if (
    req.method !== 'GET' ||
    url.origin !== self.location.origin ||
    url.pathname.startsWith('/api/') ||
    url.pathname === '/healthz'
  )
    return;
  if (req.mode === 'navigate') {
    // The newest shell when the gateway answers; the kept one when it does not.
    e.respondWith(
      fetch(req).catch(
        async () =>
          (await caches.match('/', { cacheName: CACHE })) ??
          new Response('Rudder cannot reach the gateway.', {
            status: 503,
            headers: { 'content-type': 'text/plain; charset=utf-8' },
          }),
      ),
    );
    return;
  }
  e.respondWith(
    caches.match(req, { cacheName: CACHE }).then(
      (hit) =>
        hit ??
        fetch(req).then((res) => {
          // Hashed files never change: keep any the shell list did not name (a lazily loaded chunk).
          if (res.ok && url.pathname.startsWith('/assets/')) {
            const copy = res.clone();
            void caches.open(CACHE).then((c) => c.put(req, copy));
          }
          return res;
        }),
    ),
  );
});

export {};
