/**
 * Webhook signatures: HMAC-SHA256 of the raw body with the hook's secret, compared in constant time. No bearer
 * token: the secret never crosses the wire.
 *
 * kind github — GitHub's own header, checked by @octokit/webhooks-methods:
 *   X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>
 *
 * kind generic — any other sender, with a timestamp so a captured request cannot be replayed later:
 *   X-Rudder-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>
 * where <body> is the exact bytes sent. Several v1= may be given (a sender rotating its secret); one must match.
 * The timestamp is judged by the replay rule (replay.ts): older than 5 minutes, the delivery is not run. E.g.
 *   t=$(date +%s); sig=$(printf '%s.%s' "$t" "$body" | openssl dgst -sha256 -hmac "$secret" -r | cut -d' ' -f1)
 *   curl -H "X-Rudder-Signature: t=$t,v1=$sig" -H 'Content-Type: application/json' -d "$body" .../hooks/deploy
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { verify as verifyGithubSignature } from '@octokit/webhooks-methods';

export const GITHUB_SIGNATURE_HEADER = 'x-hub-signature-256';
export const RUDDER_SIGNATURE_HEADER = 'x-rudder-signature';

export type SignatureCheck =
  | { ok: true; scheme: 'github' }
  /** `timestamp` in unix seconds; `digest` is the matching v1, a delivery key when the sender sends no id. */
  | { ok: true; scheme: 'rudder'; timestamp: number; digest: string }
  | { ok: false; why: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** GitHub's X-Hub-Signature-256 over the body; the body must be UTF-8 (JSON is), as the signer read it. */
export async function verifyGithub(
  secret: string,
  body: Uint8Array,
  header: string | undefined,
): Promise<SignatureCheck> {
  if (!header) return { ok: false, why: `no ${GITHUB_SIGNATURE_HEADER} header` };
  if (!/^sha256=[0-9a-f]{64}$/.test(header))
    return { ok: false, why: `${GITHUB_SIGNATURE_HEADER} is not sha256=<hex>` };
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { ok: false, why: 'the body is not UTF-8' };
  }
  if (!text) return { ok: false, why: 'the body is empty' };
  if (!(await verifyGithubSignature(secret, text, header))) return { ok: false, why: 'the signature does not match' };
  return { ok: true, scheme: 'github' };
}

/** The parts of an X-Rudder-Signature header, or why it is not one. */
function readRudderHeader(header: string): { timestamp: number; digests: string[] } | { why: string } {
  let timestamp: number | undefined;
  const digests: string[] = [];
  for (const item of header.split(',')) {
    const [key, value = '', extra] = item.trim().split('=');
    if (extra !== undefined) return { why: `${RUDDER_SIGNATURE_HEADER} has a malformed item` };
    if (key === 't' && /^\d{1,12}$/.test(value) && timestamp === undefined) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) digests.push(value);
    else return { why: `${RUDDER_SIGNATURE_HEADER} must be t=<unix seconds>,v1=<hex>` };
  }
  if (timestamp === undefined || !digests.length)
    return { why: `${RUDDER_SIGNATURE_HEADER} must be t=<unix seconds>,v1=<hex>` };
  return { timestamp, digests };
}

/** The hex HMAC-SHA256 of "<t>.<body>". */
function rudderDigest(secret: string, body: Uint8Array, timestamp: number): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** X-Rudder-Signature over the raw body; the timestamp's age is the replay rule's to judge. */
export function verifyRudder(secret: string, body: Uint8Array, header: string | undefined): SignatureCheck {
  if (!header) return { ok: false, why: `no ${RUDDER_SIGNATURE_HEADER} header` };
  const read = readRudderHeader(header);
  if ('why' in read) return { ok: false, why: read.why };
  const expected = Buffer.from(rudderDigest(secret, body, read.timestamp), 'hex');
  // Every candidate is compared, so the time taken does not say which one matched.
  let match: string | undefined;
  for (const d of read.digests) if (timingSafeEqual(Buffer.from(d, 'hex'), expected)) match = d;
  if (!match) return { ok: false, why: 'the signature does not match' };
  return { ok: true, scheme: 'rudder', timestamp: read.timestamp, digest: match };
}

/** The X-Rudder-Signature value for a body at a time (unix seconds): for senders, tests and `rudder` itself. */
export function signRudder(secret: string, body: Uint8Array | string, timestamp: number): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return `t=${timestamp},v1=${rudderDigest(secret, bytes, timestamp)}`;
}
