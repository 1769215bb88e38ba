/**
 * The gateway's VAPID key pair (RFC 8292): made once, on the first start with notifications on, and
 * kept in the data dir (`push-vapid.json`, mode 0600). Browsers subscribe with the public key, and
 * push services take only pushes signed with the private one, so a new pair would orphan every
 * subscription: it is never replaced while the file reads well.
 */
import fs from 'node:fs';
import path from 'node:path';
import webpush from 'web-push';

export interface VapidKeys {
  /** Uncompressed P-256 point, base64url (65 bytes): the page's applicationServerKey. */
  publicKey: string;
  /** The P-256 private scalar, base64url (32 bytes): a secret, never logged. */
  privateKey: string;
}

export const VAPID_FILE = 'push-vapid.json';

function valid(k: unknown): k is VapidKeys {
  const v = k as VapidKeys;
  return (
    typeof v?.publicKey === 'string' &&
    typeof v.privateKey === 'string' &&
    Buffer.from(v.publicKey, 'base64url').length === 65 &&
    Buffer.from(v.privateKey, 'base64url').length === 32
  );
}

export function loadOrCreateVapidKeys(dataDir: string): VapidKeys {
  const file = path.join(dataDir, VAPID_FILE);
  try {
    const keys: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (valid(keys)) return { publicKey: keys.publicKey, privateKey: keys.privateKey };
  } catch {
    // First start with notifications on: make the pair.
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const { publicKey, privateKey } = webpush.generateVAPIDKeys();
  fs.writeFileSync(file, `${JSON.stringify({ publicKey, privateKey })}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return { publicKey, privateKey };
}
