/**
 * One notification to every subscribed device: its payload is made per device (each button's token
 * names that device's subscription, so unsubscribing revokes them), sent through the push sender,
 * and a subscription whose push service answers 404 or 410 (it no longer exists) is removed.
 * Sends run in the background; a failed one is logged, never retried: a late notification of a
 * request or a turn is worse than none, and the page shows everything anyway.
 */
import { createHash } from 'node:crypto';
import type { PushOptions, PushSender } from '../../channels/push/sender.js';
import type { Logger } from '../../ops/logger.js';
import type { PushSubscriptionRow, PushSubscriptions } from '../../store/push-subscriptions.js';
import type { PushPayload } from './payload.js';

/** Push services take 4,096 bytes encrypted; aes128gcm costs 103 of them (header, tag, padding delimiter). */
export const MAX_PAYLOAD_BYTES = 3900;

export interface PushDeliveryDeps {
  sender: PushSender;
  subscriptions: PushSubscriptions;
  log: Logger;
}

/** The Topic header: a push with the same topic replaces one the push service still holds. */
export function topicOf(tag: string): string {
  return createHash('sha256').update(tag).digest('base64url').slice(0, 22);
}

export class PushDelivery {
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly d: PushDeliveryDeps) {}

  /** Sends to every subscription; `payloadFor` builds the payload for one of them. How many there are. */
  toAll(payloadFor: (sub: PushSubscriptionRow) => PushPayload, opts: PushOptions): number {
    if (this.stopped) return 0;
    const subs = this.d.subscriptions.all();
    for (const sub of subs) {
      const p = this.one(sub, payloadFor(sub), opts)
        .catch((err: unknown) => this.d.log.warn({ err: (err as Error).message }, 'a push could not be sent'))
        .finally(() => this.running.delete(p));
      this.running.add(p);
    }
    return subs.length;
  }

  /** Resolves when every send started so far has its answer, or after `ms` (shutdown); nothing starts after. */
  async stop(ms: number): Promise<void> {
    this.stopped = true;
    const wait = new Promise<void>((r) => setTimeout(r, ms).unref());
    await Promise.race([Promise.allSettled([...this.running]), wait]);
  }

  private async one(sub: PushSubscriptionRow, payload: PushPayload, opts: PushOptions): Promise<void> {
    const { sender, subscriptions, log } = this.d;
    const json = fit(payload);
    const outcome = await sender.send(sub, json, { ...opts, topic: opts.topic ?? topicOf(payload.tag) });
    if (this.stopped) return;
    if (outcome.ok) {
      subscriptions.sent(sub.id, Date.now());
      log.debug({ subscription: sub.id, kind: payload.kind, status: outcome.status }, 'push sent');
    } else if (outcome.gone) {
      subscriptions.remove(sub.id);
      log.info(
        { subscription: sub.id, status: outcome.status },
        'push subscription removed: its push service says it no longer exists',
      );
    } else {
      log.warn(
        { code: 'PUSH_SEND_FAILED', subscription: sub.id, kind: payload.kind, err: outcome.error },
        'a notification was not taken by the push service',
      );
    }
  }
}

/** The payload as JSON within what a push service takes: the body is shortened first, then the title. */
function fit(p: PushPayload): string {
  let json = JSON.stringify(p);
  for (let body = p.body, title = p.title; Buffer.byteLength(json) > MAX_PAYLOAD_BYTES && title.length > 2; ) {
    if (body.length > 40) body = `${body.slice(0, Math.floor(body.length / 2))}…`;
    else title = `${title.slice(0, Math.floor(title.length / 2))}…`;
    json = JSON.stringify({ ...p, body, title });
  }
  return json;
}
