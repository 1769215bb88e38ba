/**
 * Sending one Web Push message with the `web-push` library: the payload encrypted to the
 * subscription's keys (RFC 8291, aes128gcm) and the request signed with the gateway's VAPID key
 * (RFC 8292), POSTed to the browser's push service. One try: a push that fails is reported, and a
 * subscription the push service says is gone (404, 410) is the caller's to remove. An endpoint that
 * is an address or a local name, or whose name resolves to an address that is not public, is never
 * connected to (endpoint.ts).
 */
import https from 'node:https';
import webpush from 'web-push';
import { endpointProblem, publicLookup } from './endpoint.js';
import type { VapidKeys } from './keys.js';

/** Where a push goes: a subscription as the store keeps it. */
export interface PushTarget {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface PushOptions {
  /** How long the push service keeps it for a device that is offline, in seconds. */
  ttlSeconds: number;
  urgency: 'very-low' | 'low' | 'normal' | 'high';
  /** A later push with the same topic replaces this one while it is still undelivered (≤ 32 base64url characters). */
  topic?: string;
}

export type PushOutcome =
  | { ok: true; status: number }
  /** `gone`: the push service says this subscription no longer exists (404 or 410). */
  | { ok: false; gone: boolean; status?: number; error: string };

/** A push service that has not answered in this long counts as failed. */
const TIMEOUT_MS = 15_000;

export interface PushSenderOptions {
  keys: VapidKeys;
  /** The VAPID `sub` claim: a mailto: or https: contact for the push services. */
  subject: string;
  /**
   * The HTTPS agent the requests go through (a test's, trusting its push service's certificate): its own lookup
   * decides which addresses it connects to. Without one, an agent that connects to public addresses only.
   */
  agent?: https.Agent;
}

export class PushSender {
  private readonly agent: https.Agent;

  constructor(private readonly o: PushSenderOptions) {
    this.agent = o.agent ?? new https.Agent({ lookup: publicLookup });
  }

  async send(target: PushTarget, payload: string, opts: PushOptions): Promise<PushOutcome> {
    const problem = endpointProblem(target.endpoint);
    if (problem) return { ok: false, gone: false, error: `not sent: ${problem}` };
    try {
      const r = await webpush.sendNotification(
        { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
        payload,
        {
          vapidDetails: { subject: this.o.subject, ...this.o.keys },
          contentEncoding: 'aes128gcm',
          TTL: opts.ttlSeconds,
          urgency: opts.urgency,
          ...(opts.topic ? { topic: opts.topic } : {}),
          agent: this.agent,
          timeout: TIMEOUT_MS,
        },
      );
      return { ok: true, status: r.statusCode };
    } catch (err) {
      if (err instanceof webpush.WebPushError)
        return {
          ok: false,
          gone: err.statusCode === 404 || err.statusCode === 410,
          status: err.statusCode,
          error: `${err.statusCode} ${err.body.slice(0, 200)}`.trim(),
        };
      return { ok: false, gone: false, error: (err as Error).message };
    }
  }
}
