/**
 * Notifications as the HTTP layer sees them: the key a browser subscribes with, the devices'
 * subscriptions, per-conversation mute, which conversation a page shows (presence), and a
 * notification's button pressed (its token is its credential: the service worker has no other).
 */

import { WEB } from '../../channels/web/name.js';
import type { Store } from '../../store/store.js';
import { conversationIdOf } from '../intake/intake.js';
import type { ActionOutcome, PushActions } from '../notify/actions.js';
import type { Notifier } from '../notify/notifier.js';
import type { Presence } from '../notify/presence.js';
import type { PushInfo } from './types.js';

/** Devices at most: each push goes to all of them. */
export const MAX_SUBSCRIPTIONS = 20;

export interface PushApiDeps {
  store: Store;
  notifier: Notifier;
  presence: Presence;
  actions: PushActions;
  /** The VAPID public key; undefined when notifications are off. */
  publicKey: string | undefined;
  longTurnSeconds(): number;
}

export type SubscribeResult = { ok: true; id: string } | { ok: false; why: 'disabled' | 'full' };

export class PushApi {
  constructor(private readonly d: PushApiDeps) {}

  info(): PushInfo {
    return {
      enabled: this.d.publicKey !== undefined,
      publicKey: this.d.publicKey ?? null,
      subscriptions: this.d.store.push.count(),
      longTurnSeconds: this.d.longTurnSeconds(),
    };
  }

  subscribe(endpoint: string, p256dh: string, auth: string): SubscribeResult {
    const { store, publicKey } = this.d;
    if (!publicKey) return { ok: false, why: 'disabled' };
    const again = store.push.all().some((s) => s.endpoint === endpoint);
    if (!again && store.push.count() >= MAX_SUBSCRIPTIONS) return { ok: false, why: 'full' };
    return { ok: true, id: store.push.put(endpoint, p256dh, auth) };
  }

  /** True when there was such a subscription. */
  unsubscribe(id: string): boolean {
    return this.d.store.push.remove(id);
  }

  /** False when there is no such conversation. */
  setMuted(key: string, muted: boolean): boolean {
    const id = conversationIdOf(WEB, key);
    if (!this.d.store.conversation(id)) return false;
    this.d.store.push.setMuted(id, muted);
    return true;
  }

  presence(viewer: string, key: string | null): void {
    this.d.presence.report(viewer, key === null ? null : conversationIdOf(WEB, key));
  }

  act(token: string): ActionOutcome {
    return this.d.actions.act(token);
  }

  /** Sends a test notification to every device; how many there are. */
  test(): number {
    return this.d.notifier.test();
  }
}
