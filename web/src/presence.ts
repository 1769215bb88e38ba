/**
 * What this page tells the gateway it shows, so no device is notified about a conversation the
 * person is looking at: the open conversation while the page is visible, focused and in use (some
 * input in the last minutes), else nothing. A report is a lease the gateway forgets after 45 s, so
 * it is renewed every 20 s; hiding, blurring or closing the page says so at once (keepalive). The
 * open conversation's notifications are cleared from this device once it is looked at.
 */
import { api, getState, onChange } from './app-store.js';

const RENEW_MS = 20_000;
/** No input for this long: the person may have walked away from a screen left on. */
const IDLE_MS = 5 * 60_000;

const viewer = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
let lastInput = Date.now();
let reported: string | null | undefined;

function looking(): string | null {
  const id = getState().currentId;
  const active = Date.now() - lastInput < IDLE_MS;
  return id && document.visibilityState === 'visible' && document.hasFocus() && active ? id : null;
}

/** Tells the gateway when what this page shows changed; `renew` sends it again anyway (the lease). */
function report(renew = false, leaving = false): void {
  if (getState().push === 'gateway-off') return; // nothing is pushed: nothing to hold back
  const now = leaving ? null : looking();
  if (!renew && now === reported) return;
  reported = now;
  api()
    .presence({ viewer, conversationId: now }, leaving)
    .catch(() => {
      reported = undefined; // said again at the next change or renewal
    });
  if (now) void clearNotifications(now);
}

async function clearNotifications(conversation: string): Promise<void> {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  const reg = await navigator.serviceWorker.getRegistration();
  for (const n of (await reg?.getNotifications()) ?? [])
    if ((n.data as { conversation?: string } | null)?.conversation === conversation) n.close();
}

export function startPresence(): void {
  const input = () => {
    const idle = Date.now() - lastInput >= IDLE_MS;
    lastInput = Date.now();
    if (idle) report();
  };
  for (const type of ['pointerdown', 'keydown', 'wheel', 'touchstart', 'scroll'])
    addEventListener(type, input, { passive: true, capture: true });
  document.addEventListener('visibilitychange', () => report());
  addEventListener('focus', () => report());
  addEventListener('blur', () => report());
  addEventListener('pagehide', () => report(false, true));
  let shown = getState().currentId;
  onChange(() => {
    if (getState().currentId === shown) return;
    shown = getState().currentId;
    report();
  });
  setInterval(() => report(typeof reported === 'string'), RENEW_MS);
  report();
}
