/**
 * The service worker: keeps the app shell (index.html, its scripts and styles, the manifest and
 * icons) so the app opens from the home screen, and says it cannot reach the gateway when offline
 * instead of showing a blank page. The API is never cached: it is live and needs the token.
 * The shell list and its version are written in at build time (web/plugins/precache.ts).
 *
 * It also shows the gateway's notifications (Web Push): each push is shown (the browser asks that
 * every push is), its buttons answer from the lock screen with the signed token the push carries
 * (this worker cannot read the page's token, and needs none), and a tap opens the conversation.
 */
import type { ErrorBody, PushActionResult, PushPayload } from '../../src/http/wire.js';

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

function parsePush(text: string | undefined): PushPayload | undefined {
  try {
    const p = JSON.parse(text ?? '') as PushPayload;
    return p?.v === 1 && typeof p.title === 'string' ? p : undefined;
  } catch {
    return undefined;
  }
}

/** As many buttons as this browser shows (Chrome two), the most important first. */
function maxButtons(): number {
  return (Notification as unknown as { maxActions?: number }).maxActions ?? 2;
}

function showPush(p: PushPayload | undefined): Promise<void> {
  if (!p) return self.registration.showNotification('Rudder', { body: 'Open Rudder to see what happened.' });
  return self.registration.showNotification(p.title, {
    body: p.body,
    tag: p.tag,
    data: p,
    icon: '/icons/icon-192.png',
    badge: '/icons/icon-192.png',
    requireInteraction: p.requireInteraction,
    timestamp: p.at,
    actions: p.buttons.slice(0, maxButtons()).map((b) => ({ action: b.action, title: b.title })),
  } as NotificationOptions);
}

self.addEventListener('push', (e) => {
  e.waitUntil(showPush(parsePush(e.data?.text())));
});

/** A button's token, to the gateway: what it did, in words, or why it did nothing. */
async function press(token: string): Promise<{ ok: boolean; text: string }> {
  try {
    const res = await fetch('/api/push/action', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
      cache: 'no-store',
    });
    const body = (await res.json().catch(() => ({}))) as Partial<PushActionResult & ErrorBody>;
    return res.ok
      ? { ok: true, text: body.text ?? 'Done.' }
      : { ok: false, text: body.error?.message ?? res.statusText };
  } catch {
    return { ok: false, text: 'Cannot reach the gateway: open Rudder to answer.' };
  }
}

/** Shows the conversation: in the open app (it is asked to), else in a new window. */
async function openApp(conversation: string | null): Promise<void> {
  const wins = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const win = wins[0];
  if (!win) {
    await self.clients.openWindow(conversation ? `/#c=${encodeURIComponent(conversation)}` : '/');
    return;
  }
  if (conversation) win.postMessage({ type: 'open', conversation });
  await win.focus().catch(() => undefined);
}

async function clicked(n: Notification, action: string): Promise<void> {
  const p = n.data as PushPayload | null;
  const button = p?.buttons.find((b) => b.action === action);
  if (!p || !button) {
    n.close();
    return openApp(p?.conversation ?? null);
  }
  const r = await press(button.token);
  if (r.ok) return n.close();
  // What the tap did not do is said in place of the notification, without its buttons.
  await self.registration.showNotification(p.title, {
    body: r.text,
    tag: p.tag,
    data: { ...p, buttons: [] },
    icon: '/icons/icon-192.png',
    silent: true,
  });
}

self.addEventListener('notificationclick', (e) => {
  const done = clicked(e.notification, e.action);
  try {
    e.waitUntil(done);
  } catch {
    // An event made by a script (DevTools) cannot be kept alive: it runs as it is.
  }
});
