/**
 * What a Web Push message carries to the service worker: exactly what the notification shows, the
 * conversation a tap opens, and for each button a token that does that one thing once (answer this
 * request with this option, or stop this turn). Plain data, no imports: the service worker imports
 * it through src/http/wire.ts. The web token never travels in a push.
 */

/** job: a schedule's run answered, or a webhook's event (a failed check, a review) came in for the agent. */
export type PushKind = 'permission' | 'turn-done' | 'failed' | 'rate-limit-reset' | 'job' | 'test';

export interface PushButton {
  /** The notification action's id (`approve`, `deny`, `stop`). */
  action: 'approve' | 'deny' | 'stop';
  title: string;
  /** POST /api/push/action {token}: signed by the gateway, for this device's subscription, expiring. */
  token: string;
}

export interface PushPayload {
  v: 1;
  kind: PushKind;
  /** A later notification with the same tag replaces this one on the device. */
  tag: string;
  title: string;
  body: string;
  /** The web conversation a tap on the notification opens (the page's #c=…); null: the app. */
  conversation: string | null;
  /** In order of importance: a device shows as many as it can (Chrome two). */
  buttons: PushButton[];
  /** Stays on screen until the person acts (a request waiting for them). */
  requireInteraction: boolean;
  at: number;
}

/** POST /api/push/action */
export interface PushActionRequest {
  token: string;
}

/** What the action did, in words for the notification that replaces the one tapped. */
export interface PushActionResult {
  ok: true;
  text: string;
}
