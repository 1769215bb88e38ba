/**
 * Notifications on this device (Web Push): off until the person turns them on in the ⋯ menu; only
 * then does the browser ask for its permission. The subscription is made with the gateway's VAPID
 * key and given to the gateway, which pushes to it; the service worker (sw.ts) shows what arrives.
 * A subscription made with another key (a new data dir) is replaced, and one the gateway dropped
 * (its push service said it was gone) is given again at the next start.
 */
import type { PushSubscribeRequest } from '../../src/http/wire.js';
import { api, explain, getState, set, toast } from './app-store.js';
import { refreshList } from './list-refresh.js';

const SUBSCRIPTION_KEY = 'rudder-push-subscription';
let publicKey: string | undefined;

export function pushSupported(): boolean {
  return window.isSecureContext && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

function keyBytes(key: string): Uint8Array<ArrayBuffer> {
  const b64 = key.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

function sameKey(sub: PushSubscription, key: string): boolean {
  const given = sub.options?.applicationServerKey;
  if (!given) return false;
  const a = new Uint8Array(given);
  const b = keyBytes(key);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

async function save(sub: PushSubscription): Promise<void> {
  const { id } = await api().subscribePush(sub.toJSON() as PushSubscribeRequest);
  try {
    localStorage.setItem(SUBSCRIPTION_KEY, id);
  } catch {
    // Without storage, turning off finds the id again by subscribing once more.
  }
}

/** The start's question to the browser and the gateway (initPush), answered or not yet. */
let asking: Promise<void> = Promise.resolve();

/** At start: what this device has, told to the gateway again when it is on. */
export function initPush(): Promise<void> {
  asking = askPush();
  return asking;
}

/**
 * Resolves once the start's question has its answer, or after `withinMs` at most (a browser whose service worker
 * never starts leaves it unanswered): the ⋯ menu waits for it, so its notification items are there when it opens.
 */
export function pushAnswered(withinMs: number): Promise<void> {
  return Promise.race([asking, new Promise<void>((resolve) => setTimeout(resolve, withinMs))]);
}

async function askPush(): Promise<void> {
  if (!pushSupported()) return set({ push: 'unsupported' });
  try {
    const info = await api().pushInfo();
    if (!info.enabled || !info.publicKey) return set({ push: 'gateway-off' });
    publicKey = info.publicKey;
    if (Notification.permission === 'denied') return set({ push: 'blocked' });
    const reg = await navigator.serviceWorker.ready;
    const sub = await reg.pushManager.getSubscription();
    if (!sub || Notification.permission !== 'granted') return set({ push: 'off' });
    if (!sameKey(sub, info.publicKey)) {
      await sub.unsubscribe();
      return set({ push: 'off' });
    }
    await save(sub);
    set({ push: 'on' });
  } catch {
    // The gateway could not be asked now: the menu offers to turn them on, which asks again.
    if (getState().push === undefined) set({ push: 'off' });
  }
}

/** The person asked for notifications: the browser's permission prompt, then the subscription. */
export async function enablePush(): Promise<void> {
  set({ push: 'working' });
  try {
    publicKey ??= (await api().pushInfo()).publicKey ?? undefined;
    if (!publicKey) {
      set({ push: 'gateway-off' });
      return toast('Notifications are off on this gateway (push.enabled in its config).');
    }
    const permission = await Notification.requestPermission();
    if (permission !== 'granted') {
      set({ push: permission === 'denied' ? 'blocked' : 'off' });
      return toast(
        permission === 'denied'
          ? 'Notifications are blocked for this site: allow them in the browser’s site settings, then try again.'
          : 'Notifications stay off: the browser’s question was not answered.',
      );
    }
    const reg = await navigator.serviceWorker.ready;
    const old = await reg.pushManager.getSubscription();
    if (old && !sameKey(old, publicKey)) await old.unsubscribe();
    const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
    await save(sub);
    set({ push: 'on' });
    toast('Notifications are on for this device: Rudder tells you when the agent needs you.');
  } catch (err) {
    set({ push: 'off' });
    toast(`This browser could not turn notifications on: ${explain(err)}`);
  }
}

/** This device gets no more notifications (the gateway forgets it, and so does the browser). */
export async function disablePush(): Promise<void> {
  set({ push: 'working' });
  try {
    const reg = await navigator.serviceWorker.ready;
    const sub = await reg.pushManager.getSubscription();
    let id = localStorage.getItem(SUBSCRIPTION_KEY);
    if (!id && sub) id = (await api().subscribePush(sub.toJSON() as PushSubscribeRequest)).id;
    if (id)
      await api()
        .unsubscribePush(id)
        .catch(() => undefined);
    await sub?.unsubscribe();
    localStorage.removeItem(SUBSCRIPTION_KEY);
    set({ push: 'off' });
    toast('Notifications are off for this device.');
  } catch (err) {
    set({ push: 'on' });
    toast(explain(err));
  }
}

/** Mutes or unmutes a conversation's notifications, on every device. */
export async function setMuted(id: string, muted: boolean): Promise<void> {
  try {
    const item = await api().updateConversation(id, { muted });
    // A conversation not in the list yet (nothing sent in it) comes in with the list's next answer.
    if (getState().conversations.some((x) => x.id === id))
      set((s) => ({ conversations: s.conversations.map((x) => (x.id === id ? item : x)) }));
    else await refreshList();
    toast(muted ? 'No notifications for this conversation.' : 'Notifications for this conversation are back on.');
  } catch (err) {
    toast(explain(err));
  }
}

/** A tap on a notification, with the app already open: the worker asks this page to show that conversation. */
export function followNotificationTaps(open: (id: string) => void): void {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.addEventListener('message', (e: MessageEvent) => {
    const d = e.data as { type?: string; conversation?: unknown } | null;
    if (
      d?.type === 'open' &&
      typeof d.conversation === 'string' &&
      /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(d.conversation)
    )
      open(d.conversation);
  });
  // Messages from the worker wait in a queue until the page says it listens.
  navigator.serviceWorker.startMessages();
}
