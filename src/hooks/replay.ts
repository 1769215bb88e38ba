/**
 * The replay rule: a delivery runs at most once. A sender that retries, GitHub's "Redeliver" button and an
 * attacker replaying a captured request all get 200 and nothing runs again.
 *   - Each delivery has a key: GitHub's X-GitHub-Delivery (a GUID, the same on a redelivery); for a generic
 *     sender its X-Rudder-Delivery when it sends one, else its signature (one per timestamp and body).
 *   - The store keeps the keys it has seen, unique per (hook, key), written in the same transaction as the
 *     message, so "seen" is the answer of that insert and two requests racing cannot both run.
 *   - A generic delivery whose signed timestamp is more than 5 minutes from now (either way) is not run: its key
 *     may already be forgotten, and a sender's clock that far off is said in the log.
 * A key made of a signature is kept for twice the window (past it, the timestamp refuses the replay anyway); a
 * delivery id for 7 days (GitHub offers redelivery for 3).
 */
import type { SignatureCheck } from './signature.js';

export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;
export const GITHUB_DELIVERY_HEADER = 'x-github-delivery';
export const RUDDER_DELIVERY_HEADER = 'x-rudder-delivery';

const KEEP_SIGNATURE_MS = 2 * TIMESTAMP_TOLERANCE_SECONDS * 1000;
const KEEP_ID_MS = 7 * 24 * 3600_000;
const SIGNATURE_KEY = 'sig:';

/** A delivery id a sender gives: printable, bounded. */
const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export type DeliveryKey = { ok: true; key: string } | { ok: false; why: string };

/** The key a verified delivery is remembered by. */
export function deliveryKey(check: Extract<SignatureCheck, { ok: true }>, header: string | undefined): DeliveryKey {
  if (check.scheme === 'github') {
    if (header === undefined || !DELIVERY_ID.test(header))
      return { ok: false, why: `${GITHUB_DELIVERY_HEADER} is missing or not a delivery id` };
    return { ok: true, key: `github:${header}` };
  }
  if (header === undefined) return { ok: true, key: `${SIGNATURE_KEY}${check.timestamp}.${check.digest}` };
  if (!DELIVERY_ID.test(header))
    return { ok: false, why: `${RUDDER_DELIVERY_HEADER} must be 1-128 of A-Z a-z 0-9 . _ : -` };
  return { ok: true, key: `id:${header}` };
}

export type ReplayVerdict = { run: true } | { run: false; why: 'seen' | 'stale' | 'future'; text: string };

/** A signed timestamp (unix seconds) judged against now (epoch ms): may the delivery run, as far as time goes? */
export function timestampVerdict(timestamp: number | undefined, now: number): ReplayVerdict {
  if (timestamp === undefined) return { run: true };
  const skew = timestamp - Math.floor(now / 1000);
  const tolerance = TIMESTAMP_TOLERANCE_SECONDS;
  if (skew < -tolerance)
    return { run: false, why: 'stale', text: `signed ${-skew} s ago, more than ${tolerance} s: not run (a replay?)` };
  if (skew > tolerance)
    return {
      run: false,
      why: 'future',
      text: `signed ${skew} s in the future, more than ${tolerance} s: not run (check the sender's clock)`,
    };
  return { run: true };
}

/** The whole rule: the timestamp first (no store write for a stale one), then whether the key was new. */
export function replayVerdict(timestamp: number | undefined, now: number, keyWasNew: boolean): ReplayVerdict {
  const time = timestampVerdict(timestamp, now);
  if (!time.run) return time;
  if (!keyWasNew) return { run: false, why: 'seen', text: 'delivered before: not run again' };
  return { run: true };
}

/** When a key seen at `seenAt` may be forgotten (epoch ms): a signature past its window, an id after days. */
export function forgetKeyAt(key: string, seenAt: number): number {
  return seenAt + (key.startsWith(SIGNATURE_KEY) ? KEEP_SIGNATURE_MS : KEEP_ID_MS);
}
