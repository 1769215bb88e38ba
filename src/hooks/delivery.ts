/**
 * One POST to /hooks/<name> judged before anything is stored, in this order (cheapest refusal first, nothing of
 * the body read before its signature holds):
 *   1. the hook exists and is enabled          else 404 HOOK_UNKNOWN
 *   2. the body is at most 1 MB                 else 413 HOOK_TOO_LARGE
 *   3. the signature matches the hook's secret  else 401 HOOK_SIGNATURE_INVALID
 *   4. the delivery has a key (and an event)    else 400 BAD_REQUEST
 *   5. the body is a JSON object                else 400 HOOK_BODY_INVALID
 * An accepted delivery then meets the replay rule (replay.ts) in the store's transaction: a replay is answered 200
 * and not run. The HTTP layer stops reading a body past MAX_BODY_BYTES; the size is checked here again all the same.
 */

import { type HookConfig, type HooksConfig, hookNamed } from '../config/hooks-schema.js';
import type { ErrorCode } from '../errors.js';
import { deliveryKey, GITHUB_DELIVERY_HEADER, RUDDER_DELIVERY_HEADER } from './replay.js';
import { GITHUB_SIGNATURE_HEADER, RUDDER_SIGNATURE_HEADER, verifyGithub, verifyRudder } from './signature.js';

export const MAX_BODY_BYTES = 1024 * 1024;
export const GITHUB_EVENT_HEADER = 'x-github-event';

/** Request headers as node gives them: lower-case names, a repeated header as an array. */
export type HeaderValues = Readonly<Record<string, string | string[] | undefined>>;

export type DeliveryVerdict =
  | { kind: 'refused'; status: 400 | 401 | 404 | 413; code: ErrorCode; why: string }
  | {
      kind: 'accepted';
      hook: string;
      /** The replay key, unique per hook (replay.ts). */
      key: string;
      /** GitHub's event name (X-GitHub-Event); none for a generic sender. */
      event?: string;
      /** The signed timestamp of a generic delivery, unix seconds. */
      timestamp?: number;
      /** Untrusted: it reaches the agent only as external content from hook:<name>. */
      payload: Record<string, unknown>;
    };

const refuse = (status: 400 | 401 | 404 | 413, code: ErrorCode, why: string): DeliveryVerdict => ({
  kind: 'refused',
  status,
  code,
  why,
});

/** A header's one value; a repeated header counts as absent, since which copy was signed is unknown. */
const one = (headers: HeaderValues, name: string) => {
  const v = headers[name];
  return typeof v === 'string' ? v : undefined;
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as a JSON object, or undefined. */
function readObject(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(utf8.decode(body));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Checks the signature of the hook's kind. */
function verify(hook: HookConfig, headers: HeaderValues, body: Uint8Array) {
  return hook.kind === 'github'
    ? verifyGithub(hook.secret, body, one(headers, GITHUB_SIGNATURE_HEADER))
    : verifyRudder(hook.secret, body, one(headers, RUDDER_SIGNATURE_HEADER));
}

/** Steps 1-5 above for one request to /hooks/<name>. */
export async function judgeDelivery(
  hooks: HooksConfig,
  name: string,
  headers: HeaderValues,
  body: Uint8Array,
): Promise<DeliveryVerdict> {
  const hook = hookNamed(hooks, name);
  if (!hook?.enabled) return refuse(404, 'HOOK_UNKNOWN', `no enabled hook ${JSON.stringify(name.slice(0, 64))}`);
  if (body.byteLength > MAX_BODY_BYTES) return refuse(413, 'HOOK_TOO_LARGE', `${body.byteLength} bytes`);
  const signed = await verify(hook, headers, body);
  if (!signed.ok) return refuse(401, 'HOOK_SIGNATURE_INVALID', signed.why);
  const idHeader = signed.scheme === 'github' ? GITHUB_DELIVERY_HEADER : RUDDER_DELIVERY_HEADER;
  const key = deliveryKey(signed, one(headers, idHeader));
  if (!key.ok) return refuse(400, 'BAD_REQUEST', key.why);
  const event = one(headers, GITHUB_EVENT_HEADER);
  if (signed.scheme === 'github' && (event === undefined || !/^[a-z_]{1,64}$/.test(event)))
    return refuse(400, 'BAD_REQUEST', `${GITHUB_EVENT_HEADER} is missing or not an event name`);
  const payload = readObject(body);
  if (!payload) return refuse(400, 'HOOK_BODY_INVALID', 'the body is not a JSON object');
  return signed.scheme === 'github'
    ? { kind: 'accepted', hook: name, key: key.key, event, payload }
    : { kind: 'accepted', hook: name, key: key.key, timestamp: signed.timestamp, payload };
}
